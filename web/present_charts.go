package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"sked/models"
	"sked/scheduler/recurrence"
)

// The pictures of the pages, computed here down to the coordinate: the
// dashboard's activity chart and the job's history timeline. Both are
// server-rendered SVG; every mark also says in words what it shows.

// statusOrder is the order of the statuses in the pictures and legends.
var statusOrder = []models.HistoryStatus{models.StatusCompleted, models.StatusFailed, models.StatusPostponed}

// statusLegend names the status colours and shapes.
func statusLegend() []LegendItem {
	return []LegendItem{
		{Text: "Completed (circle)", Series: SeriesCompleted},
		{Text: "Failed (square)", Series: SeriesFailed},
		{Text: "Postponed (diamond)", Series: SeriesPostponed},
	}
}

// countsText is "10 Completed, 2 Failed" (statuses with a count only).
func countsText(counts map[models.HistoryStatus]int64) string {
	var parts []string
	for _, st := range statusOrder {
		if n := counts[st]; n > 0 {
			parts = append(parts, FormatCount(n)+" "+string(st))
		}
	}
	return strings.Join(parts, ", ")
}

// ------------------------------------------------------------ activity chart

// The activity chart's geometry (SVG user units).
const (
	actWidth      = 880
	actHeight     = 224
	actPlotX1     = 52
	actSlot       = 34 // 24 slots: 816 units
	actBarW       = 24
	actBaseY      = 192
	actMaxBarH    = 148
	actTopY       = 28
	actTickY      = 212
	ActivityHours = 24
	actTickStep   = 3
)

// NewActivityChart draws the executions of the 24 hours that end with the
// current hour, from the hourly buckets of ExecutionBuckets(from, …), with
// its hours and caption in zone (nil is UTC). The buckets are whole UTC
// hours: in a zone with a whole-hour offset they are the zone's hours; in
// one with a :30 or :45 offset (Asia/Kolkata, Asia/Kathmandu) the bars
// stay UTC hours and only their labels are in the zone (14:30–15:30).
func NewActivityChart(buckets []models.HistoryBucket, from time.Time, zone *time.Location) ActivityChart {
	if zone == nil {
		zone = time.UTC
	}
	a := ActivityChart{
		Caption: "Executions in the last 24 hours (" + zone.String() + ")",
		Width:   actWidth, Height: actHeight,
		BaseY: actBaseY, PlotX1: actPlotX1, PlotX2: actPlotX1 + ActivityHours*actSlot,
		Legend: []LegendItem{
			{Text: string(models.StatusCompleted), Series: SeriesCompleted},
			{Text: string(models.StatusFailed), Series: SeriesFailed},
			{Text: string(models.StatusPostponed), Series: SeriesPostponed},
		},
	}
	per := make([]map[models.HistoryStatus]int64, ActivityHours)
	totals := map[models.HistoryStatus]int64{}
	var maxTotal, all int64
	for _, b := range buckets {
		if b.Bucket < 0 || b.Bucket >= ActivityHours {
			continue
		}
		if per[b.Bucket] == nil {
			per[b.Bucket] = map[models.HistoryStatus]int64{}
		}
		per[b.Bucket][b.Status] += b.Count
		totals[b.Status] += b.Count
		all += b.Count
	}
	for _, m := range per {
		var t int64
		for _, n := range m {
			t += n
		}
		maxTotal = max(maxTotal, t)
	}
	if all == 0 {
		a.Empty = true
		a.Summary = "No execution in the last 24 hours."
	} else {
		a.Summary = fmt.Sprintf("%s in the last 24 hours: %s.", Plural(all, "execution", "executions"), countsText(totals))
	}
	scale := niceMax(maxTotal)
	a.YTicks = []ChartTick{
		{X: actPlotX1 - 6, Y: actBaseY, Text: "0", Anchor: "end"},
		{X: actPlotX1 - 6, Y: actBaseY - actMaxBarH/2, Text: FormatCount(scale / 2), Anchor: "end"},
		{X: actPlotX1 - 6, Y: actBaseY - actMaxBarH, Text: FormatCount(scale), Anchor: "end"},
	}
	if scale%2 != 0 {
		a.YTicks = append(a.YTicks[:1], a.YTicks[2])
	}
	for i := range ActivityHours {
		start := from.Add(time.Duration(i) * time.Hour).In(zone)
		slotX := actPlotX1 + i*actSlot
		if i%actTickStep == 0 {
			a.XTicks = append(a.XTicks, ChartTick{X: slotX + actSlot/2, Y: actTickY, Text: start.Format("15:04"), Anchor: "middle"})
		}
		m := per[i]
		var total int64
		for _, n := range m {
			total += n
		}
		label := fmt.Sprintf("%s–%s %s: ", start.Format("15:04"), start.Add(time.Hour).Format("15:04"), zone)
		if total == 0 {
			label += "no execution"
		} else {
			label += Plural(total, "execution", "executions") + " (" + countsText(m) + ")"
		}
		bar := ActivityBar{Label: label, Count: FormatCount(total), CountX: slotX + actSlot/2,
			HitX: slotX + 1, HitW: actSlot - 2, HitY: actTopY - 14, HitH: actBaseY - actTopY + 14, HasExecutions: total > 0}
		y := actBaseY
		for _, st := range statusOrder {
			n := m[st]
			if n == 0 {
				continue
			}
			h := max(2, int(math.Round(float64(n)/float64(scale)*actMaxBarH)))
			y -= h
			bar.Segments = append(bar.Segments, BarSegment{X: slotX + (actSlot-actBarW)/2, Y: y, W: actBarW, H: h, Status: st})
		}
		bar.CountY = y - 4
		a.Bars = append(a.Bars, bar)
	}
	return a
}

// niceMax rounds n up to a value that makes a readable axis: 1, 2, 5, 10,
// 20, 50, …
func niceMax(n int64) int64 {
	if n <= 1 {
		return 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

// ------------------------------------------------------------------ timeline

// TimelineRange is one zoom of the history timeline.
type TimelineRange struct {
	Value, Label, Words string
	Span, Bucket        time.Duration
}

// TimelineRanges are the zooms (SPEC §9): 24 h, 7 d, 30 d, 60 d. Bucket is
// the width of a group when there are too many executions to draw one by
// one.
var TimelineRanges = []TimelineRange{
	{"24h", "24 h", "24 hours", 24 * time.Hour, 15 * time.Minute},
	{"7d", "7 d", "7 days", 7 * 24 * time.Hour, 2 * time.Hour},
	{"30d", "30 d", "30 days", 30 * 24 * time.Hour, 6 * time.Hour},
	{"60d", "60 d", "60 days", 60 * 24 * time.Hour, 12 * time.Hour},
}

// TimelineMarkLimit is the most executions drawn one by one; beyond it the
// timeline draws groups.
const TimelineMarkLimit = 300

// The timeline's geometry (SVG user units).
const (
	tlWidth   = 800
	tlPlotX1  = 112
	tlPlotX2  = 788
	tlDetailY = 18
	tlTickY   = 44
	tlAxisY   = 52
	tlLane1   = 76
	tlLaneGap = 32
	tlLateY1  = 160
	tlLateY2  = 204
	tlHeight  = 212
	tlMaxLate = 36
	// tlDetailChars is the most characters of a mark's details line
	// that fit above the plot.
	tlDetailChars = 88
)

// TimelineInput is what a timeline is drawn from: either the entries of
// the range (Entries, when there are at most TimelineMarkLimit) or its
// buckets.
type TimelineInput struct {
	Range         TimelineRange
	From, To, Now time.Time
	Zone          *time.Location
	Entries       []models.HistoryEntry
	Buckets       []models.HistoryBucket
	Bucketed      bool
	// NeverRan is set for a job without any execution yet; FirstRun is
	// then its next run (nil when none is scheduled).
	NeverRan bool
	FirstRun *time.Time
	// URL is the fragment's own URL; PageURL and FragmentURL make the
	// range links (the range value is appended).
	URL, PageURL, FragmentURL string
}

// xOf places t on the timeline's x axis.
func xOf(t, from, to time.Time) int {
	span := to.Sub(from)
	if span <= 0 {
		return tlPlotX1
	}
	f := float64(t.Sub(from)) / float64(span)
	f = min(max(f, 0), 1)
	return tlPlotX1 + int(math.Round(f*float64(tlPlotX2-tlPlotX1)))
}

// laneY is the y of a status's lane.
func laneY(status models.HistoryStatus) int {
	for i, st := range statusOrder {
		if st == status {
			return tlLane1 + i*tlLaneGap
		}
	}
	return tlLane1
}

// NewTimelineView draws the history of one job over in.Range.
func NewTimelineView(in TimelineInput) TimelineView {
	t := TimelineView{
		URL:     in.URL,
		Caption: "Timeline of the last " + in.Range.Words + " (times in " + in.Zone.String() + ")",
		Width:   tlWidth, Height: tlHeight,
		PlotX1: tlPlotX1, PlotX2: tlPlotX2, AxisY: tlAxisY, LateY1: tlLateY1, LateY2: tlLateY2,
		LateLabel: "Lateness",
		DetailX:   tlPlotX1, DetailY: tlDetailY, DetailW: tlPlotX2 - tlPlotX1 + 8,
		Legend: append(statusLegend(), LegendItem{Text: "Lateness (line from the expected time to the start; bar height)", Series: SeriesLateness}),
	}
	for _, r := range TimelineRanges {
		t.Ranges = append(t.Ranges, RangeLink{Label: r.Label, Value: r.Value,
			URL: in.PageURL + r.Value, HXURL: in.FragmentURL + r.Value, Current: r.Value == in.Range.Value})
	}
	for _, st := range statusOrder {
		y := laneY(st)
		t.Lanes = append(t.Lanes, TimelineLane{Label: string(st), Y: y, LabelY: y + 5})
	}
	for _, tick := range timelineTicks(in.Range, in.From, in.To, in.Zone) {
		x := xOf(tick.at, in.From, in.To)
		if x < tlPlotX1+12 || x > tlPlotX2-12 {
			continue
		}
		t.Ticks = append(t.Ticks, ChartTick{X: x, Y: tlTickY, Text: tick.label, Anchor: "middle"})
		t.GridLines = append(t.GridLines, x)
	}
	totals := map[models.HistoryStatus]int64{}
	var all int64
	var maxLate int64
	if in.Bucketed {
		for _, b := range in.Buckets {
			totals[b.Status] += b.Count
			all += b.Count
			if b.MaxLatenessMs != nil {
				maxLate = max(maxLate, *b.MaxLatenessMs)
			}
		}
		t.Marks = bucketMarks(in, maxLate)
		t.Note = fmt.Sprintf("Too many executions to draw one by one: each mark groups the executions of %s.", SpanText(in.Range.Bucket))
	} else {
		for _, e := range in.Entries {
			totals[e.Status]++
			all++
			if e.LatenessMs != nil {
				maxLate = max(maxLate, *e.LatenessMs)
			}
		}
		t.Marks = entryMarks(in, maxLate)
		spreadSameSpot(t.Marks)
	}
	t.LateMax = "max " + SpanText(time.Duration(maxLate)*time.Millisecond)
	if all == 0 {
		t.Empty = true
		t.Summary = "No execution in the last " + in.Range.Words + "."
		if in.NeverRan {
			t.FirstRun = "The job has not run yet and no run is scheduled."
			if in.FirstRun != nil {
				i := InstantIn(*in.FirstRun, in.Zone, in.Now)
				t.FirstRun = "The job has not run yet: its first run is on " + i.Local + " (" + i.Relative + ")."
			}
		}
	} else {
		t.Summary = fmt.Sprintf("%s in the last %s: %s. Each mark can take the focus; its details show above the picture.",
			Plural(all, "execution", "executions"), in.Range.Words, countsText(totals))
	}
	return t
}

// lateBar is the height of a lateness bar: proportional to the largest
// lateness of the range, at least 2 units when there is any.
func lateBar(ms, maxMs int64) int {
	if ms <= 0 || maxMs <= 0 {
		return 0
	}
	return max(2, int(math.Round(float64(ms)/float64(maxMs)*tlMaxLate)))
}

// shapeMark gives m the shape of its status at (x, y).
func shapeMark(m *TimelineMark, x, y int) {
	m.X, m.Y = x, y
	switch m.Status {
	case models.StatusCompleted:
		m.Shape, m.R = "circle", 6
	case models.StatusPostponed:
		m.Shape = "diamond"
		m.Points = fmt.Sprintf("%d,%d %d,%d %d,%d %d,%d", x, y-8, x+8, y, x, y+8, x-8, y)
	default:
		m.Shape, m.RectX, m.RectY, m.RectW, m.RectH = "square", x-6, y-6, 12, 12
	}
}

// entryMarks draws one mark per execution, oldest first (so the newest is
// on top and last in the focus order).
func entryMarks(in TimelineInput, maxLate int64) []TimelineMark {
	out := make([]TimelineMark, 0, len(in.Entries))
	for i := len(in.Entries) - 1; i >= 0; i-- {
		e := in.Entries[i]
		x := xOf(e.StartTime, in.From, in.To)
		m := TimelineMark{Status: e.Status}
		shapeMark(&m, x, laneY(e.Status))
		start := e.StartTime.In(in.Zone)
		words := []string{string(e.Status), string(e.ActionName), "retry count " + strconv.Itoa(e.RetryCount), "started " + start.Format("Mon 2 Jan 15:04:05 MST")}
		exp := e.ExpectedExecutionTime.In(in.Zone)
		if !exp.Equal(start) {
			words = append(words, "expected "+exp.Format("Mon 2 Jan 15:04:05"))
		}
		detail := string(e.Status) + " · " + string(e.ActionName) + " · " + start.Format("Mon 2 Jan 15:04:05 MST")
		if e.LatenessMs != nil {
			words = append(words, SpanText(time.Duration(*e.LatenessMs)*time.Millisecond)+" late")
			detail += " · " + SpanText(time.Duration(*e.LatenessMs)*time.Millisecond) + " late"
			if ex := xOf(e.ExpectedExecutionTime, in.From, in.To); x-ex >= 2 {
				m.HasLateLine, m.LateX1 = true, ex
			}
			if h := lateBar(*e.LatenessMs, maxLate); h > 0 {
				m.LateBarX, m.LateBarW, m.LateBarH, m.LateBarY = x-1, 3, h, tlLateY2-h
			}
		}
		if w := LimitWaitText(e.LimitWaitMs); w != "" {
			words = append(words, w)
			detail += " · " + w
		}
		if e.EndTime != nil {
			words = append(words, "took "+SpanText(e.EndTime.Sub(e.StartTime)))
		}
		if s := MessageSummary(e.Message); s != "" {
			words = append(words, s)
		}
		m.Label = strings.Join(words, ", ")
		m.Detail = truncateRunes(detail, tlDetailChars)
		out = append(out, m)
	}
	return out
}

// spreadSameSpot moves marks that would hide one another (executions in
// the same second, or a few pixels apart, in one lane) apart along the
// axis, so that two runs show as two marks.
func spreadSameSpot(marks []TimelineMark) {
	const gap = 14
	last := map[int]int{} // lane y → x of its previous mark
	for i := range marks {
		m := &marks[i]
		px, seen := last[m.Y]
		if seen && m.X-px < gap {
			x := px + gap
			if x > tlPlotX2 {
				x = px - gap
			}
			dx := x - m.X
			shapeMark(m, x, m.Y)
			if m.LateBarH > 0 {
				m.LateBarX += dx
			}
		}
		last[m.Y] = m.X
	}
}

// bucketMarks draws one mark per group of executions of one status.
func bucketMarks(in TimelineInput, maxLate int64) []TimelineMark {
	out := make([]TimelineMark, 0, len(in.Buckets))
	for _, b := range in.Buckets {
		start := in.From.Add(time.Duration(b.Bucket) * in.Range.Bucket)
		end := start.Add(in.Range.Bucket)
		if end.After(in.To) {
			end = in.To
		}
		x1, x2 := xOf(start, in.From, in.To), xOf(end, in.From, in.To)
		y := laneY(b.Status)
		m := TimelineMark{Status: b.Status, Shape: "square",
			X: (x1 + x2) / 2, Y: y, RectX: x1, RectY: y - 7, RectW: max(x2-x1-1, 2), RectH: 14}
		if b.Status == models.StatusPostponed {
			shapeMark(&m, (x1+x2)/2, y)
		}
		words := []string{Plural(b.Count, string(b.Status)+" execution", string(b.Status)+" executions"),
			"from " + start.In(in.Zone).Format("Mon 2 Jan 15:04") + " to " + end.In(in.Zone).Format("Mon 2 Jan 15:04 MST")}
		if b.MaxLatenessMs != nil {
			words = append(words, "at most "+SpanText(time.Duration(*b.MaxLatenessMs)*time.Millisecond)+" late")
			if h := lateBar(*b.MaxLatenessMs, maxLate); h > 0 {
				m.LateBarX, m.LateBarW, m.LateBarH, m.LateBarY = x1, max(x2-x1-1, 2), h, tlLateY2-h
			}
		}
		m.Label = strings.Join(words, ", ")
		m.Detail = truncateRunes(m.Label, tlDetailChars)
		out = append(out, m)
	}
	return out
}

// truncateRunes shortens s to at most n characters.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// tick is a labelled instant of a time axis.
type tick struct {
	at    time.Time
	label string
}

// timelineTicks are the axis labels of a range in zone: every 3 hours
// over 24 h, every day over 7 d, every 5 days over 30 d, every 10 days
// over 60 d (at local midnight).
func timelineTicks(r TimelineRange, from, to time.Time, zone *time.Location) []tick {
	var out []tick
	lf := from.In(zone)
	if r.Span <= 24*time.Hour {
		t := time.Date(lf.Year(), lf.Month(), lf.Day(), lf.Hour(), 0, 0, 0, zone)
		for ; !t.After(to); t = t.Add(time.Hour) {
			if t.Before(from) || t.In(zone).Hour()%3 != 0 {
				continue
			}
			out = append(out, tick{t, t.In(zone).Format("15:04")})
		}
		return out
	}
	step, layout := 1, "Mon 2"
	switch {
	case r.Span > 30*24*time.Hour:
		step, layout = 10, "2 Jan"
	case r.Span > 7*24*time.Hour:
		step, layout = 5, "2 Jan"
	}
	// Local midnights by the jobs' rule (recurrence.WallInstant), stepping
	// through dates: time.Date puts a midnight skipped by daylight saving
	// at 23:00 of the day before, from which the next step would come back
	// to the same instant for ever (America/Santiago, 2024-09-08).
	for d := time.Date(lf.Year(), lf.Month(), lf.Day()+1, 0, 0, 0, 0, time.UTC); ; d = d.AddDate(0, 0, step) {
		t := recurrence.WallInstant(d, zone)
		if t.After(to) {
			break
		}
		out = append(out, tick{t, t.Format(layout)})
	}
	return out
}
