package web

import "sked/models"

// The Tailwind classes of the dashboard, collection and job pages, written
// out whole so that Tailwind finds them.

// Tone is what a badge's colour means; its text always says it too. The
// zero Tone is ToneNeutral.
type Tone int

// The tones of the badges.
const (
	// ToneNeutral is a state without alarm (disabled, unknown).
	ToneNeutral Tone = iota
	// ToneGood is a healthy state (enabled, completed run).
	ToneGood
	// ToneBad is a failure (failed run, faulted job).
	ToneBad
	// ToneWarning asks for attention (postponed run, suspended
	// collection).
	ToneWarning
	// ToneDone is a finished state (completed job).
	ToneDone
)

// badgeClass is the colour classes of a badge of tone t.
func badgeClass(t Tone) string {
	switch t {
	case ToneGood:
		return "bg-emerald-100 text-emerald-800 ring-1 ring-inset ring-emerald-600/30"
	case ToneBad:
		return "bg-red-100 text-red-800 ring-1 ring-inset ring-red-600/30"
	case ToneWarning:
		return "bg-amber-100 text-amber-900 ring-1 ring-inset ring-amber-600/30"
	case ToneDone:
		return "bg-sky-100 text-sky-800 ring-1 ring-inset ring-sky-600/30"
	}
	return "bg-slate-100 text-slate-700 ring-1 ring-inset ring-slate-500/30"
}

// Series is what a picture's legend names: one history status, or the
// lateness marks. The zero Series is SeriesCompleted.
type Series int

// The series of the pictures.
const (
	SeriesCompleted Series = iota
	SeriesFailed
	SeriesPostponed
	SeriesLateness
)

// swatchClass is the legend swatch of a series (shape as well as colour:
// circle, square, diamond, bar).
func swatchClass(s Series) string {
	switch s {
	case SeriesFailed:
		return "inline-block h-3 w-3 bg-red-600"
	case SeriesPostponed:
		return "inline-block h-3 w-3 rotate-45 bg-amber-500"
	case SeriesLateness:
		return "inline-block h-3 w-1 bg-violet-500"
	}
	return "inline-block h-3 w-3 rounded-full bg-emerald-600"
}

// statusFill is the fill of a history status in the pictures.
func statusFill(status models.HistoryStatus) string {
	switch status {
	case models.StatusFailed:
		return "fill-red-600"
	case models.StatusPostponed:
		return "fill-amber-500"
	}
	return "fill-emerald-600"
}

// Classes of the pictures.
const (
	// markStroke outlines a timeline mark that has the pointer or the
	// focus.
	markStroke = "stroke-white group-hover:stroke-slate-900 group-focus:stroke-slate-900"
)

// Buttons and links that look like buttons.
const (
	linkButtonClass   = "inline-flex items-center rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	primaryButton     = "inline-flex items-center rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus:outline-none focus:ring-2 focus:ring-indigo-500 focus:ring-offset-2"
	secondaryButton   = "inline-flex items-center rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	dangerButton      = "inline-flex items-center rounded border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-700 hover:bg-red-50 focus:outline-none focus:ring-2 focus:ring-red-500"
	pageLinkClass     = "text-indigo-700 underline-offset-2 hover:underline focus:outline-none focus:ring-2 focus:ring-indigo-500"
	rangeLinkClass    = "rounded border border-slate-300 bg-white px-3 py-1 text-sm text-slate-800 hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	rangeCurrentClass = "rounded border border-indigo-600 bg-indigo-600 px-3 py-1 text-sm font-medium text-white focus:outline-none focus:ring-2 focus:ring-indigo-500 focus:ring-offset-2"
	selectClass       = "mt-1 block w-full rounded border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
)
