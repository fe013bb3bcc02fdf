package web

// The Tailwind classes of the dashboard, collection and job pages, written
// out whole so that Tailwind finds them.

// Badge colours. A badge's text always says what the colour means.
const (
	BadgeGreen  = "bg-emerald-100 text-emerald-800 ring-1 ring-inset ring-emerald-600/30"
	BadgeRed    = "bg-red-100 text-red-800 ring-1 ring-inset ring-red-600/30"
	BadgeAmber  = "bg-amber-100 text-amber-900 ring-1 ring-inset ring-amber-600/30"
	BadgeSlate  = "bg-slate-100 text-slate-700 ring-1 ring-inset ring-slate-500/30"
	BadgeBlue   = "bg-sky-100 text-sky-800 ring-1 ring-inset ring-sky-600/30"
	badgeFailed = BadgeRed
)

// Fills of the pictures, one per history status, and the legend swatches
// (shape as well as colour: circle, square, diamond).
const (
	FillCompleted   = "fill-emerald-600"
	FillFailed      = "fill-red-600"
	FillPostponed   = "fill-amber-500"
	SwatchCompleted = "inline-block h-3 w-3 rounded-full bg-emerald-600"
	SwatchFailed    = "inline-block h-3 w-3 bg-red-600"
	SwatchPostponed = "inline-block h-3 w-3 rotate-45 bg-amber-500"
	SwatchLateness  = "inline-block h-3 w-1 bg-violet-500"
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
