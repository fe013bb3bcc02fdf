package calics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models/caldef"
	"sked/models/jobdef"
)

// ruleRRULE writes a rule entry as an RRULE when iCalendar means the same
// days by it: interval 1, and one of week days (weekly), month days or
// week days of the month (monthly), or months with either (yearly). It
// reports false for the rest, which export expands into days.
func ruleRRULE(r *jobdef.Recurrence) (string, bool) {
	if r == nil || r.Interval > 1 {
		return "", false
	}
	var s jobdef.Schedule
	if r.Schedule != nil {
		s = *r.Schedule
	}
	days, occ := len(s.MonthDays) > 0, len(s.MonthlyOccurrences) > 0
	switch r.Frequency {
	case jobdef.Day:
		if s.IsEmpty() {
			return "FREQ=DAILY", true
		}
	case jobdef.Week:
		if len(s.WeekDays) > 0 && !days && !occ && len(s.Months) == 0 {
			return "FREQ=WEEKLY;BYDAY=" + weekDaysList(s.WeekDays), true
		}
	case jobdef.Month:
		switch {
		case days && !occ && len(s.WeekDays) == 0:
			return "FREQ=MONTHLY;BYMONTHDAY=" + intList(s.MonthDays), true
		case occ && !days && len(s.WeekDays) == 0:
			return "FREQ=MONTHLY;BYDAY=" + occurrencesList(s.MonthlyOccurrences), true
		}
	case jobdef.Year:
		if len(s.Months) == 0 || len(s.WeekDays) > 0 {
			return "", false
		}
		switch {
		case days && !occ:
			return "FREQ=YEARLY;BYMONTH=" + intList(s.Months) + ";BYMONTHDAY=" + intList(s.MonthDays), true
		case occ && !days:
			return "FREQ=YEARLY;BYMONTH=" + intList(s.Months) + ";BYDAY=" + occurrencesList(s.MonthlyOccurrences), true
		}
	}
	return "", false
}

// addRuleEvent adds a rule entry as a recurring all-day event starting on
// its first day on or after since (1900 without since), or reports false
// when its rule has no RRULE or no day.
func addRuleEvent(out *calendarWriter, uid string, e caldef.Entry, expand Expander) (bool, error) {
	rule, ok := ruleRRULE(e.Rule)
	if !ok {
		return false, nil
	}
	since := caldef.Date{Year: caldef.FirstYear, Month: time.January, Day: 1}
	if e.Since != nil {
		since = *e.Since
	}
	// A rule of days occurs within any 8 years (02-29 within 8 years too).
	hi := addDays(since, 8*366)
	if e.Until != nil && e.Until.Before(hi) {
		hi = *e.Until
	}
	if hi.Before(since) {
		return true, nil
	}
	days, err := expand(e, since, hi)
	if err != nil {
		return false, err
	}
	if len(days) == 0 {
		return true, nil // never occurs: nothing to write
	}
	if e.Until != nil {
		rule += ";UNTIL=" + e.Until.Time().Format("20060102")
	}
	out.recurring(uid, e.Label, days[0], rule, e.Except)
	return true, nil
}

// weekDaysList is BYDAY for week days: "MO,FR".
func weekDaysList(days []time.Weekday) string {
	out := make([]string, len(days))
	for i, d := range days {
		out[i] = icalDay(d)
	}
	return strings.Join(out, ",")
}

// occurrencesList is BYDAY for week days of the month: "4TH,-1MO,SU".
func occurrencesList(occ []jobdef.MonthlyOccurrence) string {
	out := make([]string, len(occ))
	for i, o := range occ {
		out[i] = icalDay(o.Day)
		if o.Occurrence != 0 {
			out[i] = strconv.Itoa(o.Occurrence) + out[i]
		}
	}
	return strings.Join(out, ",")
}

// intList is "1,15,-1".
func intList(v []int) string {
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, ",")
}

// icalDay is a weekday as iCalendar writes it: "MO".
func icalDay(d time.Weekday) string {
	for k, v := range icalDays {
		if v == d {
			return k
		}
	}
	panic(fmt.Sprintf("calics: weekday %d", d))
}
