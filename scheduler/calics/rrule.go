package calics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models/caldef"
)

// rrule is a parsed RRULE.
type rrule struct {
	freq       string
	interval   int
	count      int
	until      string
	byMonth    []int
	byMonthDay []int
	byDay      []byDay
	unknown    []string // BY… parts a calendar entry cannot express
}

// byDay is one BYDAY value: a weekday with an optional ordinal (4TH, -1MO).
type byDay struct {
	n  int
	wd time.Weekday
}

var icalDays = map[string]time.Weekday{"SU": time.Sunday, "MO": time.Monday, "TU": time.Tuesday,
	"WE": time.Wednesday, "TH": time.Thursday, "FR": time.Friday, "SA": time.Saturday}

// parseRRule reads an RRULE value such as "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH".
func parseRRule(s string) (rrule, error) {
	r := rrule{interval: 1}
	for _, part := range strings.Split(strings.TrimSpace(s), ";") {
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return r, fmt.Errorf("%q is not NAME=VALUE", part)
		}
		k = strings.ToUpper(k)
		var err error
		switch k {
		case "FREQ":
			r.freq = strings.ToUpper(v)
		case "INTERVAL":
			r.interval, err = strconv.Atoi(v)
			if err == nil && r.interval < 1 {
				err = fmt.Errorf("INTERVAL %q is below 1", v)
			}
		case "COUNT":
			r.count, err = strconv.Atoi(v)
		case "UNTIL":
			r.until = v
		case "BYMONTH":
			r.byMonth, err = ints(v)
		case "BYMONTHDAY":
			r.byMonthDay, err = ints(v)
		case "BYDAY":
			r.byDay, err = byDays(v)
		case "WKST":
		default:
			r.unknown = append(r.unknown, k)
		}
		if err != nil {
			return r, fmt.Errorf("%s: %w", k, err)
		}
	}
	if r.freq == "" {
		return r, fmt.Errorf("FREQ is missing")
	}
	return r, nil
}

// ints reads a comma-separated list of integers.
func ints(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// byDays reads BYDAY values such as "MO,TU", "4TH" or "-1MO".
func byDays(v string) ([]byDay, error) {
	var out []byDay
	for _, f := range strings.Split(v, ",") {
		f = strings.ToUpper(strings.TrimSpace(f))
		if len(f) < 2 {
			return nil, fmt.Errorf("%q is not a weekday", f)
		}
		wd, ok := icalDays[f[len(f)-2:]]
		if !ok {
			return nil, fmt.Errorf("%q is not a weekday", f)
		}
		d := byDay{wd: wd}
		if num := f[:len(f)-2]; num != "" {
			n, err := strconv.Atoi(num)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("%q has no valid ordinal", f)
			}
			d.n = n
		}
		out = append(out, d)
	}
	return out, nil
}

// ruleEntry turns r, for an event on day start, into the fields of a
// calendar entry: {"yearly": "MM-DD"} or {"rule": {…}}. reason says why
// it cannot when it cannot.
func ruleEntry(r rrule, start caldef.Date) (map[string]any, string) {
	switch {
	case len(r.unknown) > 0:
		return nil, fmt.Sprintf("RRULE uses %s, which a calendar entry cannot express", strings.Join(r.unknown, ", "))
	case r.count > 0:
		return nil, "RRULE ends after COUNT occurrences, which a calendar entry cannot express (UNTIL can)"
	}
	switch r.freq {
	case "YEARLY":
		return yearlyEntry(r, start)
	case "MONTHLY":
		if len(r.byMonth) > 0 {
			return nil, "a monthly RRULE with BYMONTH cannot be expressed"
		}
		sch, reason := monthSchedule(r, start)
		if reason != "" {
			return nil, reason
		}
		return rule("month", r.interval, sch), ""
	case "WEEKLY":
		if len(r.byMonth) > 0 || len(r.byMonthDay) > 0 {
			return nil, "a weekly RRULE with BYMONTH or BYMONTHDAY cannot be expressed"
		}
		days := []string{}
		for _, d := range r.byDay {
			if d.n != 0 {
				return nil, "a weekly RRULE with an ordinal in BYDAY cannot be expressed"
			}
			days = append(days, dayName(d.wd))
		}
		if len(days) == 0 {
			days = append(days, dayName(start.Time().Weekday()))
		}
		return rule("week", r.interval, map[string]any{"weekDays": days}), ""
	case "DAILY":
		if len(r.byMonth)+len(r.byMonthDay)+len(r.byDay) > 0 {
			return nil, "a daily RRULE with BYMONTH, BYMONTHDAY or BYDAY cannot be expressed"
		}
		return rule("day", r.interval, nil), ""
	}
	return nil, fmt.Sprintf("FREQ=%s repeats within a day: a calendar names whole days", r.freq)
}

// yearlyEntry converts a FREQ=YEARLY rule.
func yearlyEntry(r rrule, start caldef.Date) (map[string]any, string) {
	months := r.byMonth
	if len(months) == 0 {
		months = []int{int(start.Month)}
	}
	if len(r.byDay) > 0 {
		if len(r.byMonthDay) > 0 {
			return nil, "a yearly RRULE with both BYDAY and BYMONTHDAY cannot be expressed"
		}
		occ := make([]map[string]any, 0, len(r.byDay))
		for _, d := range r.byDay {
			o := map[string]any{"day": dayName(d.wd)}
			if d.n != 0 {
				o["occurrence"] = d.n
			}
			occ = append(occ, o)
		}
		return rule("year", r.interval, map[string]any{"months": months, "monthlyOccurrences": occ}), ""
	}
	days := r.byMonthDay
	if len(days) == 0 {
		days = []int{start.Day}
	}
	if r.interval == 1 && len(months) == 1 && len(days) == 1 && days[0] > 0 {
		return map[string]any{"yearly": fmt.Sprintf("%02d-%02d", months[0], days[0])}, ""
	}
	return rule("year", r.interval, map[string]any{"months": months, "monthDays": days}), ""
}

// monthSchedule is the schedule of a FREQ=MONTHLY rule.
func monthSchedule(r rrule, start caldef.Date) (map[string]any, string) {
	switch {
	case len(r.byDay) > 0 && len(r.byMonthDay) > 0:
		return nil, "a monthly RRULE with both BYDAY and BYMONTHDAY cannot be expressed"
	case len(r.byDay) > 0:
		occ := make([]map[string]any, 0, len(r.byDay))
		for _, d := range r.byDay {
			o := map[string]any{"day": dayName(d.wd)}
			if d.n != 0 {
				o["occurrence"] = d.n
			}
			occ = append(occ, o)
		}
		return map[string]any{"monthlyOccurrences": occ}, ""
	case len(r.byMonthDay) > 0:
		return map[string]any{"monthDays": r.byMonthDay}, ""
	}
	return map[string]any{"monthDays": []int{start.Day}}, ""
}

// rule is a rule entry's fields.
func rule(freq string, interval int, schedule map[string]any) map[string]any {
	r := map[string]any{"frequency": freq}
	if interval > 1 {
		r["interval"] = interval
	}
	if len(schedule) > 0 {
		r["schedule"] = schedule
	}
	return map[string]any{"rule": r}
}

// dayName is a weekday as the recurrence JSON writes it.
func dayName(wd time.Weekday) string { return strings.ToLower(wd.String()) }
