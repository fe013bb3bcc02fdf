package jobdef

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CronOf returns the crontab line equivalent to rec, and whether there is
// one. There is one only when the recurrence does not depend on its anchor
// (interval 1, and every element the frequency would take from the start
// time is given: minutes, hours from frequency day on, weekDays for week,
// monthDays or monthlyOccurrences for month and year, months for year) and
// cron can say it (no monthDays together with monthlyOccurrences, no counting
// from the end beyond L and nL). count, endTime and timeZone are not part of
// the line, nor are calendars: the line is the schedule they apply to.
func CronOf(rec *Recurrence) (string, bool) {
	if rec == nil || rec.Interval != 1 || rec.Schedule.IsEmpty() || rec.Frequency == Second {
		return "", false // cron counts minutes: a job every second has no line
	}
	s := rec.Schedule
	minute := "*" // frequency minute: every minute of the hours given
	if len(s.Minutes) > 0 {
		minute = cronList(s.Minutes, 0, 59)
	} else if rec.Frequency != Minute {
		return "", false
	}
	hour := "*"
	switch rec.Frequency {
	case Minute, Hour:
		if len(s.Hours) > 0 {
			hour = cronList(s.Hours, 0, 23)
		}
	default:
		if len(s.Hours) == 0 {
			return "", false
		}
		hour = cronList(s.Hours, 0, 23)
	}
	dom, month, dow := "*", "*", "*"
	switch rec.Frequency {
	case Minute, Hour, Day:
	case Week:
		if len(s.WeekDays) == 0 {
			return "", false
		}
		days := make([]int, len(s.WeekDays))
		for i, d := range s.WeekDays {
			days[i] = int(d)
		}
		dow = cronList(days, 0, 6)
	case Month, Year:
		if rec.Frequency == Year {
			if len(s.Months) == 0 {
				return "", false
			}
			month = cronList(s.Months, 1, 12)
		}
		var ok bool
		switch {
		case len(s.MonthDays) > 0 && len(s.MonthlyOccurrences) > 0:
			return "", false
		case len(s.MonthDays) > 0:
			if dom, ok = cronMonthDays(s.MonthDays); !ok {
				return "", false
			}
		case len(s.MonthlyOccurrences) > 0:
			if dow, ok = cronOccurrences(s.MonthlyOccurrences); !ok {
				return "", false
			}
		default:
			return "", false
		}
	default:
		return "", false
	}
	return strings.Join([]string{minute, hour, dom, month, dow}, " "), true
}

// cronMonthDays writes monthDays as a day-of-month field (-1 is L, -n is
// L-(n-1)).
func cronMonthDays(days []int) (string, bool) {
	var pos []int
	var ends []string
	for _, d := range days {
		switch {
		case d > 0:
			pos = append(pos, d)
		case d == -1:
			ends = append(ends, "L")
		default:
			ends = append(ends, "L-"+strconv.Itoa(-d-1))
		}
	}
	var parts []string
	if len(pos) > 0 {
		parts = append(parts, cronList(pos, 1, 31))
	}
	if len(pos) == 31 {
		return "*", len(ends) == 0
	}
	return strings.Join(append(parts, ends...), ","), true
}

// cronOccurrences writes monthlyOccurrences as a day-of-week field: a plain
// day for every such day, d#n for the n-th, dL for the last; other counts
// from the end have no cron form.
func cronOccurrences(occ []MonthlyOccurrence) (string, bool) {
	var plain []int
	var special []string
	for _, o := range occ {
		switch {
		case o.Occurrence == 0:
			plain = append(plain, int(o.Day))
		case o.Occurrence > 0:
			special = append(special, fmt.Sprintf("%d#%d", o.Day, o.Occurrence))
		case o.Occurrence == -1:
			special = append(special, fmt.Sprintf("%dL", o.Day))
		default:
			return "", false
		}
	}
	var parts []string
	if len(plain) > 0 {
		parts = append(parts, cronList(plain, 0, 6))
	}
	if len(plain) == 7 && len(special) == 0 {
		return "*", true
	}
	return strings.Join(append(parts, special...), ","), true
}

// cronList writes values as a cron field: * when they cover lo..hi, else
// ascending, with runs of three or more as ranges and evenly stepped
// sequences from lo as */n.
func cronList(vals []int, lo, hi int) string {
	v := slices.Clone(vals)
	slices.Sort(v)
	v = slices.Compact(v)
	if len(v) == hi-lo+1 {
		return "*"
	}
	if len(v) > 2 && v[0] == lo {
		step := v[1] - v[0]
		even := true
		for i := 1; i < len(v); i++ {
			even = even && v[i]-v[i-1] == step
		}
		if even && step > 1 && v[len(v)-1]+step > hi {
			return "*/" + strconv.Itoa(step)
		}
	}
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		default:
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(v[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
