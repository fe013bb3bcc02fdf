package recurrence

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"sked/models/jobdef"
)

// Description returns the rule in plain English, in the wording of the
// seeds' example table: "At 05:15 and 17:15, every day", "At 06:00 on the
// last day of every month", "Every 15 minutes on Monday to Friday,
// 09:00–16:45", "On the first and last Friday of every month at 05:15
// (Europe/Berlin)". Elements the schedule leaves out are described with the
// values they default to (from the anchor). The zone is named unless it is
// UTC; count, endTime and the spread window are appended (", 10 times",
// ", until …", ", spread over 5 minutes"), and last a deadline (", must
// succeed within 2 hours").
func (r *Rule) Description() string {
	var b strings.Builder
	if r.triggered {
		// "Runs after rg/jc/A succeeds"; a startTime is when the job
		// starts to follow its upstream jobs.
		b.WriteString("Runs " + r.job.Trigger.Describe(formatSpan))
		if r.job.StartTime != nil {
			b.WriteString(", from " + r.fmtLocal(r.anchor))
		}
		return b.String()
	}
	if r.once {
		b.WriteString("Once at " + r.fmtLocal(r.onceAt))
	} else {
		b.WriteString(r.describeRecurrence())
		if r.count > 0 {
			if r.count == 1 {
				b.WriteString(", once")
			} else {
				fmt.Fprintf(&b, ", %d times", r.count)
			}
		}
		if r.hasUntil {
			b.WriteString(", until " + r.fmtLocal(r.until))
		}
		if w := r.job.Recurrence.Window; w >= time.Second {
			b.WriteString(", spread over " + formatSpan(w))
		}
	}
	if len(r.cals) > 0 {
		b.WriteString(", except on " + r.calendarNames())
		switch r.onExcluded {
		case jobdef.ExcludedNextDay:
			b.WriteString(" (moved to the next day)")
		case jobdef.ExcludedPreviousDay:
			b.WriteString(" (moved to the previous day)")
		}
	}
	if r.zone.loc != time.UTC {
		b.WriteString(" (" + r.zone.loc.String() + ")")
	}
	if r.job != nil {
		b.WriteString(deadlineWords(r.job.Deadline)) // deadline.go
	}
	return b.String()
}

// calendarNames lists the rule's calendars: "a", "a and b", "a, b and c".
func (r *Rule) calendarNames() string {
	names := make([]string, len(r.cals))
	for i, c := range r.cals {
		names[i] = c.name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// fmtLocal formats an instant as "2006-01-02 15:04" on the zone's wall clock
// (with seconds when it has any).
func (r *Rule) fmtLocal(u int64) string {
	t := time.Unix(u, 0).In(r.zone.loc)
	if t.Second() != 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

// timePhrase is the time-of-day part of a description: either a list ("At
// 05:15 and 17:15"), or a lead ("Every 15 minutes") with a tail of hours
// (", 09:00–16:45").
type timePhrase struct {
	list bool
	lead string
	tail string
}

// describeTimes describes the times of day of the rule.
func (r *Rule) describeTimes() timePhrase {
	hours := bitsOf(uint64(r.hourMask), 24)
	mins := bitsOf(r.minMask, 60)
	step := int64(0) // minutes evenly spread over the hour, at least four of them
	if len(mins) >= 4 && 60%int64(len(mins)) == 0 {
		step = 60 / int64(len(mins))
		for i, m := range mins {
			if m != mins[0]+int64(i)*step {
				step = 0
				break
			}
		}
	}
	if step == 0 && len(hours)*len(mins) <= 4 {
		var ts []string
		for _, h := range hours {
			for _, m := range mins {
				ts = append(ts, clock(h, m, r.sec))
			}
		}
		return timePhrase{list: true, lead: "At " + joinAnd(ts)}
	}
	var p timePhrase
	switch {
	case step == 1:
		p.lead = "Every minute"
	case step > 0 && mins[0] == 0:
		p.lead = fmt.Sprintf("Every %d minutes", step)
	case step > 0:
		p.lead = fmt.Sprintf("Every %d minutes from :%02d", step, mins[0])
	case len(mins) == 60:
		p.lead = "Every minute"
	case len(mins) == 1 && mins[0] == 0:
		p.lead = "Every hour on the hour"
	case len(mins) == 1:
		p.lead = fmt.Sprintf("At %d minutes past every hour", mins[0])
	default:
		ms := make([]string, len(mins))
		for i, m := range mins {
			ms[i] = fmt.Sprint(m)
		}
		p.lead = "At minutes " + joinAnd(ms) + " past every hour"
	}
	if r.sec != 0 {
		p.lead += fmt.Sprintf(" (second %d)", r.sec)
	}
	if len(hours) < 24 {
		contiguous := hours[len(hours)-1]-hours[0] == int64(len(hours)-1)
		if contiguous {
			p.tail = ", " + clock(hours[0], mins[0], 0) + "–" + clock(hours[len(hours)-1], mins[len(mins)-1], 0)
		} else {
			hs := make([]string, len(hours))
			for i, h := range hours {
				hs[i] = fmt.Sprintf("%02d", h)
			}
			p.tail = ", during hours " + joinAnd(hs)
		}
	}
	return p
}

// elapsedPhrase names the step of an elapsed-time rule: "Every 2 hours".
func (r *Rule) elapsedPhrase() string {
	unit := "minute"
	switch r.freq {
	case jobdef.Hour:
		unit = "hour"
	case jobdef.Second:
		unit = "second"
	}
	return capitalize(plural(r.interval, unit))
}

// describeRecurrence describes a recurring rule without count, end and zone.
func (r *Rule) describeRecurrence() string {
	if r.elapsed {
		s := r.elapsedPhrase()
		// Hours counted from a start off the hour run at its minute.
		if m := ((r.anchorWall/60)%60 + 60) % 60; r.freq == jobdef.Hour && m != 0 {
			s += fmt.Sprintf(" at :%02d", m)
		}
		return s
	}
	if r.freq == jobdef.Second {
		return r.describeSecondly()
	}
	tp := r.describeTimes()
	switch r.freq {
	case jobdef.Minute, jobdef.Hour:
		unit := string(r.freq)
		if r.interval > 1 {
			s := capitalize(plural(r.interval, unit))
			if r.freq == jobdef.Hour {
				s += fmt.Sprintf(" at %d minutes past", nextBit(r.minMask, 0))
			}
			return s + tp.tail
		}
		if tp.list {
			return tp.lead + ", every day"
		}
		return tp.lead + tp.tail
	case jobdef.Day:
		every := ""
		if r.interval > 1 || tp.list {
			every = ", " + plural(r.interval, "day")
		}
		return tp.lead + tp.tail + every
	case jobdef.Week:
		s := tp.lead + " on " + r.describeWeekDays() + tp.tail
		if r.interval > 1 {
			s += ", " + plural(r.interval, "week")
		}
		return s
	}
	// Month and year.
	days, occurrenceForm := r.describeMonthDays()
	var period string
	if r.freq == jobdef.Month {
		period = "of " + plural(r.interval, "month")
	} else {
		var ms []string
		for _, m := range bitsOf(uint64(r.monthsMask), 13) {
			ms = append(ms, monthName(m))
		}
		period = "of " + joinAnd(ms) + " every year"
	}
	note := ""
	if r.simple && r.aDayOfMonth > 28 {
		note = " (the last day in shorter months)"
	}
	if occurrenceForm && tp.list {
		return "On " + days + " " + period + " at " + strings.TrimPrefix(tp.lead, "At ") + note
	}
	return tp.lead + " on " + days + " " + period + note + tp.tail
}

// describeSecondly describes a second rule with a schedule: "Every 10
// seconds, at minutes 0–14 past the hour, during hours 9–17, on Monday to
// Friday".
func (r *Rule) describeSecondly() string {
	var sch jobdef.Schedule
	if rec := r.job.Recurrence; rec.Schedule != nil {
		sch = *rec.Schedule
	}
	b := capitalize(plural(r.interval, "second"))
	if len(sch.Minutes) > 0 {
		b += ", at " + spans("minute", bitsOf(r.minMask, 60)) + " past the hour"
	}
	if len(sch.Hours) > 0 {
		b += ", during " + spans("hour", bitsOf(uint64(r.hourMask), 24))
	}
	if len(sch.WeekDays) > 0 {
		b += ", on " + r.describeWeekDays()
	}
	if len(sch.MonthDays) > 0 || len(sch.MonthlyOccurrences) > 0 {
		days, _ := r.describeMonthDays()
		b += ", on " + days + " of the month"
	}
	if len(sch.Months) > 0 {
		var ms []string
		for _, m := range bitsOf(uint64(r.monthsMask), 13) {
			ms = append(ms, monthName(m))
		}
		b += ", in " + joinAnd(ms)
	}
	return b
}

// spans names sorted values with runs of three or more as ranges:
// "minutes 0–14", "hours 9 and 17", "minute 5".
func spans(unit string, vs []int64) string {
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d–%d", vs[i], vs[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, fmt.Sprint(vs[k]))
			}
		}
		i = j + 1
	}
	if len(vs) > 1 {
		unit += "s"
	}
	return unit + " " + joinAnd(parts)
}

// describeWeekDays names the selected days of the week, Monday first, with
// runs of three or more as "Monday to Friday".
func (r *Rule) describeWeekDays() string {
	if r.weekMask == 0x7f {
		return "every day"
	}
	var parts []string
	for i := int64(0); i < 7; {
		if r.weekMask&(1<<i) == 0 {
			i++
			continue
		}
		j := i
		for j+1 < 7 && r.weekMask&(1<<(j+1)) != 0 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, weekdayName((i+1)%7)+" to "+weekdayName((j+1)%7))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, weekdayName((k+1)%7))
			}
		}
		i = j + 1
	}
	return joinAnd(parts)
}

// describeMonthDays names the days of a month the rule selects, and whether
// the phrase is about weekdays ("the first and last Friday"), which reads
// best before the time.
func (r *Rule) describeMonthDays() (string, bool) {
	var s jobdef.Schedule
	if rec := r.job.Recurrence; rec != nil && rec.Schedule != nil {
		s = *rec.Schedule
	}
	dayList := func() string {
		ds := append([]int(nil), s.MonthDays...)
		sort.Slice(ds, func(i, j int) bool { // 1, 2, … 31, then -31 … -1
			a, b := ds[i], ds[j]
			if (a > 0) != (b > 0) {
				return a > 0
			}
			return a < b
		})
		names := make([]string, len(ds))
		for i, d := range ds {
			names[i] = dayOrdinal(d)
		}
		return "the " + joinAnd(names) + " day"
	}
	if len(s.MonthlyOccurrences) == 0 {
		if len(s.MonthDays) > 0 {
			return dayList(), false
		}
		return "the " + dayOrdinal(int(r.aDayOfMonth)) + " day", false
	}
	// Group the occurrences by weekday, in order of first appearance.
	var order []time.Weekday
	groups := map[time.Weekday][]int{}
	for _, o := range s.MonthlyOccurrences {
		if _, ok := groups[o.Day]; !ok {
			order = append(order, o.Day)
		}
		groups[o.Day] = append(groups[o.Day], o.Occurrence)
	}
	var parts []string
	for _, d := range order {
		occ := groups[d]
		every := false
		for _, o := range occ {
			every = every || o == 0
		}
		if every {
			parts = append(parts, "every "+d.String())
			continue
		}
		sort.Slice(occ, func(i, j int) bool {
			a, b := occ[i], occ[j]
			if (a > 0) != (b > 0) {
				return a > 0
			}
			return a < b
		})
		names := make([]string, len(occ))
		for i, o := range occ {
			names[i] = dayOrdinal(o)
		}
		parts = append(parts, joinAnd(names)+" "+d.String())
	}
	phrase := joinAnd(parts)
	if !strings.HasPrefix(phrase, "every ") {
		phrase = "the " + phrase
	}
	if len(s.MonthDays) > 0 {
		phrase += " that is " + dayList()
	}
	return phrase, true
}
