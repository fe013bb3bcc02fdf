package recurrence

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"sked/models/caldef"
	"sked/models/jobdef"
)

// maxCalendarMarks bounds the days (and ranges) one calendar expands to.
const maxCalendarMarks = 200_000

// Calendar is a compiled calendar (SPEC §13.6): the days it excludes, as
// sorted, disjoint spans of day numbers (days since 1970-01-01) on its
// zone's wall clock, over the years caldef.FirstYear–caldef.LastYear. It is
// immutable and safe for concurrent use.
type Calendar struct {
	name   string
	zone   zone
	spans  []daySpan     // merged, sorted, disjoint days
	ispans []instantSpan // the same spans as instants: what Next searches
	index  spanIndex     // where in ispans to search for an instant
	marks  []dayMark     // as expanded, sorted by from: where labels come from
}

// instantSpan is the instants from start (included) to end (excluded) of a
// span of days on the calendar's wall clock; end is math.MaxInt64 for a
// span without end.
type instantSpan struct{ start, end int64 }

// daySpan is the days from through to, both included.
type daySpan struct{ from, to int64 }

// dayMark is the days one entry excludes, with the entry's label.
type dayMark struct {
	from, to int64
	label    string
}

// Calendars are the compiled calendars of a workspace, keyed by lower-case
// name.
type Calendars map[string]*Calendar

// ExcludedDay is one day a calendar excludes, with the label of the entry
// that excludes it (the first one, when several do).
type ExcludedDay struct {
	Date  caldef.Date
	Label string
}

// CompileCalendar expands the entries of c into the days they exclude: a
// date, the days of a range, a yearly date every year between since and
// until (02-29 in leap years only), and the days of a rule anchored at
// since (default 1900-01-01); except lists days a yearly or rule entry
// leaves out. It fails when the entries expand to more than 200,000 days
// or ranges.
func CompileCalendar(name string, c *caldef.Calendar) (*Calendar, error) {
	if c == nil {
		return nil, errors.New("compile calendar: nil calendar")
	}
	cal := &Calendar{name: name, zone: newZone(c.Location)}
	first := caldef.Date{Year: caldef.FirstYear, Month: 1, Day: 1}
	last := caldef.Date{Year: caldef.LastYear, Month: 12, Day: 31}
	for i, e := range c.Entries {
		since, until := first, last
		if e.Since != nil {
			since = *e.Since
		}
		if e.Until != nil {
			until = *e.Until
		}
		except := map[int64]bool{}
		for _, d := range e.Except {
			except[d.DayNumber()] = true
		}
		add := func(from, to int64) error {
			if len(cal.marks) >= maxCalendarMarks {
				return fmt.Errorf("compile calendar %q: entries[%d]: the calendar expands to more than %d days", name, i, maxCalendarMarks)
			}
			cal.marks = append(cal.marks, dayMark{from: from, to: to, label: e.Label})
			return nil
		}
		var err error
		switch e.Kind {
		case caldef.KindDate:
			err = add(e.Date.DayNumber(), e.Date.DayNumber())
		case caldef.KindRange:
			err = add(e.Date.DayNumber(), e.To.DayNumber())
		case caldef.KindYearly:
			for y := since.Year; y <= until.Year && err == nil; y++ {
				if e.Month == 2 && e.Day == 29 && !isLeap(int64(y)) {
					continue
				}
				d := daysFromCivil(int64(y), int64(e.Month), int64(e.Day))
				if d >= since.DayNumber() && d <= until.DayNumber() && !except[d] {
					err = add(d, d)
				}
			}
		case caldef.KindRule:
			err = cal.expandRule(e, since, until, except, add)
		default:
			err = fmt.Errorf("compile calendar %q: entries[%d]: unknown kind %q", name, i, e.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(cal.marks, func(i, j int) bool { return cal.marks[i].from < cal.marks[j].from })
	for _, m := range cal.marks {
		if n := len(cal.spans); n > 0 && m.from <= cal.spans[n-1].to+1 {
			cal.spans[n-1].to = max(cal.spans[n-1].to, m.to)
			continue
		}
		cal.spans = append(cal.spans, daySpan{m.from, m.to})
	}
	// Entries are expanded up to the last year; a span that reaches it (a
	// rule that excludes every day, say) goes on for ever.
	if n := len(cal.spans); n > 0 && cal.spans[n-1].to >= lastDay {
		cal.spans[n-1].to = foreverDay
	}
	cal.ispans = make([]instantSpan, len(cal.spans))
	for i, sp := range cal.spans {
		start, _ := cal.zone.resolve(sp.from * secondsPerDay)
		end := int64(math.MaxInt64)
		if sp.to < foreverDay {
			end, _ = cal.zone.resolve((sp.to + 1) * secondsPerDay)
		}
		cal.ispans[i] = instantSpan{start, end}
	}
	cal.index = newSpanIndex(cal.ispans)
	return cal, nil
}

// spanAt returns the index of the first instant span that ends after u, or
// len(ispans); the span holds u when its start is not after u. The index
// narrows the search to the spans that end within u's bucket.
func (c *Calendar) spanAt(u int64) int {
	lo, hi := c.index.bounds(u, len(c.ispans))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.ispans[m].end <= u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lastDay is the day number of the last day a calendar expands to, and
// foreverDay stands for "no end" in a span.
var (
	lastDay    = caldef.Date{Year: caldef.LastYear, Month: 12, Day: 31}.DayNumber()
	foreverDay = int64(math.MaxInt64 / (2 * secondsPerDay))
)

// expandRule adds the days of a rule entry: the rule's occurrences from
// since, as a job whose start time is 00:00 of since on a UTC wall clock.
func (cal *Calendar) expandRule(e caldef.Entry, since, until caldef.Date, except map[int64]bool, add func(from, to int64) error) error {
	if e.Rule == nil {
		return fmt.Errorf("compile calendar %q: a rule entry without its rule", cal.name)
	}
	rec := *e.Rule
	rec.Location, rec.TimeZone, rec.Calendars, rec.Count, rec.EndTime = time.UTC, "", nil, 0, nil
	start := since.Time()
	job := &jobdef.Job{Recurrence: &rec, StartTime: &jobdef.DateTime{Raw: since.String(), Time: start, DateOnly: true}}
	r, err := Compile(job, start)
	if err != nil {
		return fmt.Errorf("compile calendar %q: rule: %w", cal.name, err)
	}
	end := until.DayNumber()
	for t, ok := r.Next(start.Add(-time.Second)); ok; t, ok = r.Next(t) {
		d := floorDiv(t.Unix(), secondsPerDay)
		if d > end {
			break
		}
		if !except[d] {
			if err := add(d, d); err != nil {
				return err
			}
		}
		// The next occurrence on a later day: a rule names days.
		t = time.Unix((d+1)*secondsPerDay-1, 0).UTC()
	}
	return nil
}

// Name returns the calendar's name.
func (c *Calendar) Name() string { return c.name }

// Location returns the calendar's zone.
func (c *Calendar) Location() *time.Location { return c.zone.loc }

// Excluded reports whether the calendar excludes day d, with the label of
// the entry that does.
func (c *Calendar) Excluded(d caldef.Date) (label string, ok bool) {
	day := d.DayNumber()
	if _, ok := c.spanOf(day); !ok {
		return "", false
	}
	return c.labelOf(day), true
}

// ExcludedDays lists the days from from to to (both included) that the
// calendar excludes, in order.
func (c *Calendar) ExcludedDays(from, to caldef.Date) []ExcludedDay {
	lo, hi := from.DayNumber(), to.DayNumber()
	var out []ExcludedDay
	i := sort.Search(len(c.spans), func(i int) bool { return c.spans[i].to >= lo })
	for ; i < len(c.spans) && c.spans[i].from <= hi; i++ {
		for d := max(c.spans[i].from, lo); d <= min(c.spans[i].to, hi, lastDay); d++ {
			y, m, dd := civilFromDays(d)
			out = append(out, ExcludedDay{Date: caldef.Date{Year: int(y), Month: time.Month(m), Day: int(dd)}, Label: c.labelOf(d)})
		}
	}
	return out
}

// ExcludesEveryDay reports whether the calendar excludes every day from d
// on: a span of excluded days that reaches its last year (for example a rule
// naming every day) has no end.
func (c *Calendar) ExcludesEveryDay(d caldef.Date) bool {
	s, ok := c.spanOf(d.DayNumber())
	return ok && s.to >= foreverDay
}

// spanOf returns the span holding day d.
func (c *Calendar) spanOf(d int64) (daySpan, bool) {
	i := sort.Search(len(c.spans), func(i int) bool { return c.spans[i].to >= d })
	if i < len(c.spans) && c.spans[i].from <= d {
		return c.spans[i], true
	}
	return daySpan{}, false
}

// labelOf returns the label of the first entry that excludes day d (the
// marks before d, back as far as a range can reach).
func (c *Calendar) labelOf(d int64) string {
	i := sort.Search(len(c.marks), func(i int) bool { return c.marks[i].from > d })
	label, found := "", false
	for j := i - 1; j >= 0 && c.marks[j].from >= d-caldef.MaxRangeDays; j-- {
		if c.marks[j].to >= d && (!found || c.marks[j].label != "") {
			label, found = c.marks[j].label, true
			if label != "" {
				break
			}
		}
	}
	return label
}

// exclusionEnd reports whether the calendar excludes the day of instant u
// and, if so, the instant at which its excluded days end (00:00 of the
// first day after the span, on the calendar's wall clock; math.MaxInt64 for
// a span without end).
func (c *Calendar) exclusionEnd(u int64) (int64, bool) {
	if i := c.spanAt(u); i < len(c.ispans) && c.ispans[i].start <= u {
		return c.ispans[i].end, true
	}
	return 0, false
}

// exclusionStart reports whether the calendar excludes the day of instant u
// and, if so, the instant at which its span of excluded days begins.
func (c *Calendar) exclusionStart(u int64) (int64, bool) {
	if i := c.spanAt(u); i < len(c.ispans) && c.ispans[i].start <= u {
		return c.ispans[i].start, true
	}
	return 0, false
}

// exclusionReason describes why instant u is excluded: "Christmas Day
// (holidays-de)", or "holidays-de" for an unlabelled entry; the calendars
// that exclude it are joined with commas.
func exclusionReason(cals []*Calendar, u int64) string {
	var parts []string
	for _, cal := range cals {
		d := floorDiv(cal.zone.wall(u), secondsPerDay)
		if _, ok := cal.spanOf(d); !ok {
			continue
		}
		if l := cal.labelOf(d); l != "" {
			parts = append(parts, l+" ("+cal.name+")")
		} else {
			parts = append(parts, cal.name)
		}
	}
	return strings.Join(slices.Compact(parts), ", ")
}
