package jobdef

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// frequencyAliases maps accepted spellings to frequencies. The seeds write
// "monthly" in one example, so the -ly forms are accepted too.
var frequencyAliases = map[string]Frequency{
	"second": Second, "minute": Minute, "hour": Hour, "day": Day, "week": Week, "month": Month, "year": Year,
	"secondly": Second, "minutely": Minute, "hourly": Hour, "daily": Day, "weekly": Week, "monthly": Month, "yearly": Year,
}

// parseRecurrence reads and validates the recurrence object.
func parseRecurrence(raw json.RawMessage, ps *problems) *Recurrence {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add("recurrence", "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	o = expandCron(o, ps) // recurrence.cron becomes frequency and schedule (cron.go)
	r := &Recurrence{Interval: 1, Location: time.UTC}

	if s, ok := stringField(o, "frequency", "recurrence.frequency", ps); ok {
		if f, ok := frequencyAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
			r.Frequency = f
		} else {
			ps.add("recurrence.frequency", fmt.Sprintf("%q is not one of second, minute, hour, day, week, month, year", s))
		}
	} else if _, present := o.get("frequency"); !present {
		ps.add("recurrence.frequency", "is required")
	}

	if v, ok := intField(o, "interval", "recurrence.interval", 1, ps); ok {
		if max := r.Frequency.MaxInterval(); max > 0 && v > max {
			ps.add("recurrence.interval", fmt.Sprintf("%d is over the maximum of %d for frequency %q", v, max, r.Frequency))
		} else {
			r.Interval = v
		}
	}
	if v, ok := intField(o, "count", "recurrence.count", 1, ps); ok {
		r.Count = v
	}
	if s, ok := stringField(o, "endTime", "recurrence.endTime", ps); ok {
		if dt, err := ParseDateTime(s, true); err != nil {
			ps.add("recurrence.endTime", fmt.Sprintf("%q is not an ISO 8601 date or date-time (e.g. 2024-05-01 or 2024-05-01T09:30:00Z)", s))
		} else {
			r.EndTime = &dt
		}
	}
	if s, ok := stringField(o, "timeZone", "recurrence.timeZone", ps); ok {
		if loc, err := LoadZone(s); err != nil {
			ps.add("recurrence.timeZone", fmt.Sprintf("%q is not a known IANA or Windows time zone", s))
		} else {
			r.TimeZone, r.Location = s, loc
		}
	}
	if sraw, ok := o.get("schedule"); ok {
		r.Schedule = parseSchedule(sraw, r.Frequency, ps)
	}
	if craw, ok := o.get("calendars"); ok {
		r.Calendars = parseCalendars(craw, ps)
	}
	r.Window, r.WindowText = parseWindow(o, ps)
	return r
}

// parseWindow reads recurrence.window: an ISO 8601 duration of whole
// seconds from PT0S to MaxWindow. Whether it is shorter than the gaps
// between the occurrences is checked with the compiled rule
// (recurrence.Rule.CheckWindow).
func parseWindow(o object, ps *problems) (time.Duration, string) {
	const path = "recurrence.window"
	s, ok := stringField(o, "window", path, ps)
	if !ok {
		return 0, ""
	}
	d, err := ParseISODuration(s)
	switch {
	case strings.HasPrefix(strings.TrimSpace(s), "-"):
		ps.add(path, fmt.Sprintf("%q is negative: give PT0S to PT1H", s))
	case err != nil:
		ps.add(path, fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT5M)", s))
	case d%time.Second != 0:
		ps.add(path, fmt.Sprintf("%q is not a whole number of seconds", s))
	case d > MaxWindow:
		ps.add(path, fmt.Sprintf("%q is over the maximum of PT1H", s))
	default:
		return d, s
	}
	return 0, ""
}

// ParseRecurrence reads and validates a recurrence object on its own (for
// example a rule of a calendar). Problems are reported with paths that start
// with "recurrence".
func ParseRecurrence(raw json.RawMessage) (*Recurrence, error) {
	ps := &problems{}
	r := parseRecurrence(raw, ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return r, nil
}

// intField reads an integer field that must be at least min. It reports
// wrong types, fractions and values below min; the caller checks maxima.
// An integer too large for 32 bits is reported as over the maximum.
func intField(o object, key, path string, min int, ps *problems) (int, bool) {
	raw, ok := o.get(key)
	if !ok {
		return 0, false
	}
	v, text, res := decodeInt(raw)
	switch res {
	case intNotNumber:
		ps.add(path, "must be an integer, not "+article(kindOf(raw)))
	case intNotInteger:
		ps.add(path, text+" is not an integer")
	case intTooLarge:
		ps.add(path, text+" is too large")
	case intTooSmall:
		ps.add(path, fmt.Sprintf("%s is below the minimum of %d", text, min))
	default:
		if v < min {
			ps.add(path, fmt.Sprintf("%d is below the minimum of %d", v, min))
			return 0, false
		}
		return v, true
	}
	return 0, false
}

// parseSchedule reads the schedule object and checks which elements the
// frequency allows. It returns nil when no element is given.
func parseSchedule(raw json.RawMessage, freq Frequency, ps *problems) *Schedule {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add("recurrence.schedule", "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	const p = "recurrence.schedule."
	s := &Schedule{
		Minutes: intElement(o, "minutes", p+"minutes", 0, 59, false, ps),
		Hours:   intElement(o, "hours", p+"hours", 0, 23, false, ps),
	}
	s.WeekDays = weekDaysElement(o, p+"weekDays", ps)
	s.MonthDays = intElement(o, "monthDays", p+"monthDays", 1, 31, true, ps)
	s.MonthlyOccurrences = occurrencesElement(o, p+"monthlyOccurrences", ps)
	s.Months = intElement(o, "months", p+"months", 1, 12, false, ps)

	// With frequency second every element limits which seconds run, as
	// RFC 5545's BYxxx rules limit FREQ=SECONDLY.
	if freq != "" && freq != Second {
		if len(s.WeekDays) > 0 && freq != Week {
			ps.add(p+"weekDays", `can only be used with frequency "week"`)
		}
		if len(s.MonthDays) > 0 && freq != Month && freq != Year {
			ps.add(p+"monthDays", `can only be used with frequency "month" or "year"`)
		}
		if len(s.MonthlyOccurrences) > 0 && freq != Month && freq != Year {
			ps.add(p+"monthlyOccurrences", `can only be used with frequency "month" or "year"`)
		}
		if len(s.Months) > 0 && freq != Year {
			ps.add(p+"months", `can only be used with frequency "year"`)
		}
	}
	if s.IsEmpty() {
		return nil
	}
	return s
}

// elements returns the values of a schedule element that may be a single
// value or an array, with each value's path.
func elements(raw json.RawMessage, path string) ([]json.RawMessage, []string) {
	if arr, ok := decodeArray(raw); ok {
		paths := make([]string, len(arr))
		for i := range arr {
			paths[i] = fmt.Sprintf("%s[%d]", path, i)
		}
		return arr, paths
	}
	return []json.RawMessage{raw}, []string{path}
}

// intElement reads an integer-or-array schedule element with values in
// lo..hi (and -hi..-lo when negative is true), de-duplicated in order of
// first appearance. It returns nil when the element is absent or empty.
func intElement(o object, key, path string, lo, hi int, negative bool, ps *problems) []int {
	raw, ok := o.get(key)
	if !ok {
		return nil
	}
	k := kindOf(raw)
	if k != "number" && k != "array" {
		ps.add(path, "must be an integer or an array of integers, not "+article(k))
		return nil
	}
	rng := fmt.Sprintf("(%d to %d)", lo, hi)
	if negative {
		rng = fmt.Sprintf("(%d to %d, or %d to %d counting from the end)", lo, hi, -hi, -lo)
	}
	vals, paths := elements(raw, path)
	var out []int
	seen := map[int]bool{}
	for i, v := range vals {
		n, text, res := decodeInt(v)
		switch res {
		case intNotNumber:
			ps.add(paths[i], "must be an integer, not "+article(kindOf(v)))
			continue
		case intNotInteger:
			ps.add(paths[i], text+" is not an integer")
			continue
		case intTooLarge, intTooSmall:
			ps.add(paths[i], text+" is out of range "+rng)
			continue
		}
		if !(n >= lo && n <= hi) && !(negative && n <= -lo && n >= -hi) {
			ps.add(paths[i], fmt.Sprintf("%d is out of range %s", n, rng))
			continue
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// weekdayNames maps lowercase English day names to weekdays.
var weekdayNames = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// parseWeekday reads a day name, case-insensitively.
func parseWeekday(raw json.RawMessage, path string, ps *problems) (time.Weekday, bool) {
	s, ok := decodeString(raw)
	if !ok {
		ps.add(path, "must be a day name such as \"monday\", not "+article(kindOf(raw)))
		return 0, false
	}
	d, ok := weekdayNames[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		ps.add(path, fmt.Sprintf("%q is not a day of the week (sunday to saturday)", s))
		return 0, false
	}
	return d, true
}

// weekDaysElement reads weekDays: a day name or an array of at most 7.
func weekDaysElement(o object, path string, ps *problems) []time.Weekday {
	raw, ok := o.get("weekDays")
	if !ok {
		return nil
	}
	k := kindOf(raw)
	if k != "string" && k != "array" {
		ps.add(path, "must be a day name or an array of day names, not "+article(k))
		return nil
	}
	vals, paths := elements(raw, path)
	if len(vals) > 7 {
		ps.add(path, fmt.Sprintf("%d days given, at most 7", len(vals)))
		return nil
	}
	var out []time.Weekday
	seen := map[time.Weekday]bool{}
	for i, v := range vals {
		if d, ok := parseWeekday(v, paths[i], ps); ok && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// occurrencesElement reads monthlyOccurrences: an object or an array of
// objects {"day": weekday, "occurrence": n}; the key "Occurrence" is accepted
// too (keys match case-insensitively).
func occurrencesElement(o object, path string, ps *problems) []MonthlyOccurrence {
	raw, ok := o.get("monthlyOccurrences")
	if !ok {
		return nil
	}
	k := kindOf(raw)
	if k != "object" && k != "array" {
		ps.add(path, "must be an array of {\"day\", \"occurrence\"} objects, not "+article(k))
		return nil
	}
	vals, paths := elements(raw, path)
	var out []MonthlyOccurrence
	seen := map[MonthlyOccurrence]bool{}
	for i, v := range vals {
		eo, ok := decodeObject(v)
		if !ok {
			ps.add(paths[i], "must be an object {\"day\", \"occurrence\"}, not "+article(kindOf(v)))
			continue
		}
		var mo MonthlyOccurrence
		good := true
		if draw, ok := eo.get("day"); !ok {
			ps.add(paths[i]+".day", "is required")
			good = false
		} else if mo.Day, ok = parseWeekday(draw, paths[i]+".day", ps); !ok {
			good = false
		}
		if oraw, ok := eo.get("occurrence"); ok {
			n, text, res := decodeInt(oraw)
			switch {
			case res == intNotNumber:
				ps.add(paths[i]+".occurrence", "must be an integer, not "+article(kindOf(oraw)))
				good = false
			case res == intNotInteger:
				ps.add(paths[i]+".occurrence", text+" is not an integer")
				good = false
			case res != intOK || n < -5 || n > 5 || n == 0:
				ps.add(paths[i]+".occurrence", text+" is out of range (1 to 5, or -1 to -5 counting from the end)")
				good = false
			default:
				mo.Occurrence = n
			}
		}
		if good && !seen[mo] {
			seen[mo] = true
			out = append(out, mo)
		}
	}
	return out
}
