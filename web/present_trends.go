package web

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"sked/models"
)

// TrendRuns is how many of a job's latest runs the trends chart shows.
const TrendRuns = 100

// The trends chart's geometry (SVG user units). The picture holds the
// bars only: it is drawn trendHeight CSS pixels high whatever its width
// (preserveAspectRatio="none"), so a y unit is a pixel and only x
// stretches; its labels are HTML beside it, in the page's font size (text
// sized in user units grew with the width: 22 px at 1280 px). The label
// column of TrendsFragment (executions.templ) is as high, its lateness
// label starting at trendLateTopY: h-[208px], h-[112px] and h-[96px].
const (
	trendWidth    = 540
	trendHeight   = 208
	trendPlotX1   = 4
	trendPlotX2   = 536
	trendDurTopY  = 8
	trendDurBaseY = 96
	trendLateTopY = 112
	trendLateBase = 200
	trendMaxBarW  = 14
)

// TrendPeriod is a success-rate period: its label and its length.
type TrendPeriod struct {
	Label string
	Span  time.Duration
}

// TrendPeriods are the periods of the success rates: 7 and 30 days.
var TrendPeriods = []TrendPeriod{{"Last 7 days", 7 * 24 * time.Hour}, {"Last 30 days", 30 * 24 * time.Hour}}

// NewTrendsView is the trends section of a job whose fragment is url
// (JobTrendsPath): runs are its latest runs, newest first (at most
// TrendRuns), and counts the attempts of each of TrendPeriods.
func NewTrendsView(url string, runs []models.TrendRun, counts []models.SuccessCounts) TrendsView {
	v := TrendsView{URL: url, Empty: len(runs) == 0}
	for i, p := range TrendPeriods {
		var c models.SuccessCounts
		if i < len(counts) {
			c = counts[i]
		}
		v.Rates = append(v.Rates, rateView(p.Label, c))
	}
	if !v.Empty {
		v.Chart = newTrendChart(runs)
	}
	return v
}

// rateView is the success rate of one period.
func rateView(label string, c models.SuccessCounts) RateView {
	if c.Total == 0 {
		return RateView{Label: label, Value: "—", Detail: "no run"}
	}
	pct := float64(c.Succeeded) * 100 / float64(c.Total)
	r := RateView{Label: label, Value: percentText(pct),
		Detail: fmt.Sprintf("%s of %s succeeded", FormatCount(c.Succeeded), Plural(c.Total, "attempt", "attempts"))}
	switch {
	case pct >= 99:
		r.Tone = ToneGood
	case pct >= 90:
		r.Tone = ToneWarning
	default:
		r.Tone = ToneBad
	}
	return r
}

// percentText is "100 %", "99.5 %", "0 %" (one decimal below 100, none
// for whole numbers).
func percentText(p float64) string {
	p = math.Floor(p*10) / 10 // never round up to 100 %
	if p == math.Trunc(p) {
		return strconv.Itoa(int(p)) + " %"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}

// newTrendChart draws runs (newest first) oldest on the left: a duration
// bar per run coloured by status, and its lateness below, each lane scaled
// to its largest value. The lateness lane is the engine's: what a run
// waited for its host's target limit is said apart (SPEC §16.2).
func newTrendChart(runs []models.TrendRun) TrendChart {
	n := len(runs)
	ch := TrendChart{
		Caption: fmt.Sprintf("Duration and lateness of the last %s", Plural(int64(n), "run", "runs")),
		Width:   trendWidth, Height: trendHeight, PlotX1: trendPlotX1, PlotX2: trendPlotX2,
		DurBaseY: trendDurBaseY, LateBaseY: trendLateBase, DurLabel: "Duration", LateLabel: "Lateness",
		Legend: []LegendItem{{Text: string(models.StatusCompleted), Series: SeriesCompleted},
			{Text: string(models.StatusFailed), Series: SeriesFailed}, {Text: "Lateness", Series: SeriesLateness}},
	}
	durs := make([]time.Duration, n)
	var maxDur, maxLate, maxWait time.Duration
	var sumDur time.Duration
	failed := 0
	for i, r := range runs {
		if r.EndTime != nil {
			durs[i] = max(0, r.EndTime.Sub(r.StartTime))
		}
		maxDur, sumDur = max(maxDur, durs[i]), sumDur+durs[i]
		if late, ok := engineLateness(r); ok {
			maxLate = max(maxLate, late)
		}
		maxWait = max(maxWait, limitWait(r))
		if r.Status == models.StatusFailed {
			failed++
		}
	}
	ch.DurMax, ch.LateMax = "max "+SpanText(maxDur), "max "+SpanText(maxLate)
	ch.Summary = fmt.Sprintf("%s: %d failed; average duration %s, longest %s; largest lateness %s.",
		Plural(int64(n), "run", "runs"), failed, SpanText(sumDur/time.Duration(n)), SpanText(maxDur), SpanText(maxLate))
	if maxWait > 0 {
		ch.Summary += fmt.Sprintf(" Waits for a target limit, not counted as lateness: up to %s.", SpanText(maxWait))
	}
	slot := float64(trendPlotX2-trendPlotX1) / float64(max(n, 20))
	w := max(1, min(trendMaxBarW, int(slot*0.7)))
	scale := func(d, top time.Duration, h int) int {
		if top <= 0 || d <= 0 {
			return 0
		}
		return max(1, int(math.Round(float64(h)*float64(d)/float64(top))))
	}
	for k := range n {
		i := n - 1 - k // oldest first
		r := runs[i]
		x := trendPlotX1 + int(float64(k)*slot+(slot-float64(w))/2)
		late, ok := engineLateness(r)
		lateText := "—"
		if ok {
			lateText = SpanText(late)
		}
		if wait := limitWait(r); wait > 0 {
			lateText += ", waited " + SpanText(wait) + " for the target limit"
		}
		dh := scale(durs[i], maxDur, trendDurBaseY-trendDurTopY)
		lh := scale(late, maxLate, trendLateBase-trendLateTopY)
		ch.Bars = append(ch.Bars, TrendBar{
			Label: fmt.Sprintf("%s UTC: %s, took %s, late by %s", r.StartTime.UTC().Format("2 Jan 15:04:05"), r.Status,
				SpanText(durs[i]), lateText),
			Status: r.Status, X: x, W: w,
			DurY: trendDurBaseY - dh, DurH: dh, LateY: trendLateBase - lh, LateH: lh,
			HitY: trendDurTopY, HitH: trendLateBase - trendDurTopY,
		})
	}
	return ch
}

// limitWait is how long run r waited for its host's target limit.
func limitWait(r models.TrendRun) time.Duration {
	if r.LimitWaitMs == nil {
		return 0
	}
	return time.Duration(*r.LimitWaitMs) * time.Millisecond
}

// engineLateness is run r's lateness without its wait for a target
// limit; false when its lateness is unknown.
func engineLateness(r models.TrendRun) (time.Duration, bool) {
	if r.LatenessMs == nil {
		return 0, false
	}
	return max(0, time.Duration(*r.LatenessMs)*time.Millisecond-limitWait(r)), true
}
