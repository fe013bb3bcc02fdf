package jobdef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// buildCron chooses the frequency and writes the schedule (see the table at
// the top of this file).
func buildCron(c *Cron, line string, f [5]*cronSet) (*Cron, error) {
	minute, hour, dom, month, dow := f[0], f[1], f[2], f[3], f[4]
	for i, s := range f {
		if len(s.vals) == 0 && len(s.fromEnd) == 0 && len(s.occ) == 0 {
			return nil, cronErr("%s %q selects nothing", cronFields[i].name, strings.Fields(line)[i])
		}
	}
	if !dom.star && !dow.star {
		fields := strings.Fields(line)
		return nil, cronErr("standard cron runs when day-of-month OR day-of-week matches (%q: day-of-month %s or day-of-week %s); a recurrence can only require both: use two jobs, one per field",
			line, fields[2], fields[4])
	}
	s := &Schedule{Minutes: minute.sorted()}
	hours := hour.sorted()
	domRestricted := !dom.star && !dom.full(1, 31)
	dowRestricted := !dow.star && !dow.full(0, 6)
	monthRestricted := !month.full(1, 12)

	var days []int
	if domRestricted {
		days = dom.sorted()
		for _, v := range sortedKeys(dom.fromEnd, true) {
			days = append(days, v)
		}
	}
	var occ []MonthlyOccurrence
	if dowRestricted {
		for _, d := range mondayFirst(dow.vals) {
			occ = append(occ, MonthlyOccurrence{Day: d})
		}
		for _, o := range dow.occ {
			if !slices.Contains(occ, o) {
				occ = append(occ, o)
			}
		}
	}
	switch {
	case monthRestricted:
		c.Frequency = Year
		s.Hours, s.Months = hours, month.sorted()
		if len(occ) > 0 {
			s.MonthlyOccurrences = occ
		} else if days != nil {
			s.MonthDays = days
		} else {
			s.MonthDays = intRange(1, 31)
		}
		if days != nil && !anyDayExists(s.Months, days) {
			names := make([]string, len(s.Months))
			for i, m := range s.Months {
				names[i] = time.Month(m).String()
			}
			return nil, cronErr("never runs: there is no day %s in %s", joinInts(days), strings.Join(names, " or "))
		}
	case domRestricted || dowRestricted && len(dow.occ) > 0:
		c.Frequency = Month
		s.Hours = hours
		if len(occ) > 0 {
			s.MonthlyOccurrences = occ
		} else {
			s.MonthDays = days
		}
	case dowRestricted:
		c.Frequency = Week
		s.Hours, s.WeekDays = hours, mondayFirst(dow.vals)
	case !hour.full(0, 23):
		c.Frequency, s.Hours = Day, hours
	case !minute.full(0, 59):
		c.Frequency = Hour
	default:
		c.Frequency = Minute
	}
	c.Schedule = s
	return c, nil
}

// anyDayExists reports whether some month of months has some day of days.
func anyDayExists(months, days []int) bool {
	for _, m := range months {
		for _, d := range days {
			if d < 0 || d <= [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m] {
				return true
			}
		}
	}
	return false
}

// sortedKeys returns the keys of m sorted (descending when desc: L before L-1).
func sortedKeys(m map[int]bool, desc bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	if desc {
		slices.Reverse(out)
	}
	return out
}

// mondayFirst returns the weekdays of vals from Monday to Sunday.
func mondayFirst(vals map[int]bool) []time.Weekday {
	var out []time.Weekday
	for i := 1; i <= 7; i++ {
		if vals[i%7] {
			out = append(out, time.Weekday(i%7))
		}
	}
	return out
}

// intRange returns lo, lo+1, …, hi.
func intRange(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

// joinInts writes values separated by commas.
func joinInts(vals []int) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

// CronRecurrenceJSON converts a crontab line to the recurrence JSON Sked
// stores for it ({"frequency", "interval", "schedule"} and "timeZone" when
// the line has a CRON_TZ= prefix), or returns the *CronError refusing it.
func CronRecurrenceJSON(line string) (json.RawMessage, error) {
	c, err := ParseCron(line)
	if err != nil {
		return nil, err
	}
	j := &Job{Recurrence: &Recurrence{Frequency: c.Frequency, Interval: 1, Schedule: c.Schedule, TimeZone: c.TimeZone}}
	return j.marshalRecurrence(MarshalOptions{}), nil
}

// CronStart is the startTime of a job given as recurrence.cron without
// one: a wall-clock time long past in the job's zone. Any past start gives
// the same runs, since the converted schedule takes nothing from its
// anchor; and a start in the past keeps SPEC §2's "no startTime: run now"
// from adding a run at creation that cron would never make (a crontab
// line never fires when it is installed).
const CronStart = "2000-01-01T00:00:00"

// defaultCronStart gives a job whose recurrence is a cron line, and that
// has no startTime, the startTime CronStart.
func defaultCronStart(raw json.RawMessage, job *Job) {
	if job.StartTime != nil || job.Recurrence == nil {
		return
	}
	o, ok := decodeObject(raw)
	if !ok {
		return
	}
	if _, ok := o.get("cron"); !ok {
		return
	}
	if dt, err := ParseDateTime(CronStart, false); err == nil {
		job.StartTime = &dt
	}
}

// expandCron replaces recurrence.cron by the frequency and schedule it
// converts to, so that the rest of parseRecurrence validates them like any
// other recurrence. It returns o unchanged when there is no cron member.
func expandCron(o object, ps *problems) object {
	raw, ok := o.get("cron")
	if !ok {
		return o
	}
	out := object{}
	for k, v := range o {
		if !strings.EqualFold(k, "cron") {
			out[k] = v
		}
	}
	// After a problem, a placeholder frequency keeps parseRecurrence from
	// adding "frequency is required" to the real reason; the job is refused
	// anyway.
	placeholder := func() object { out["frequency"] = json.RawMessage(`"day"`); return out }
	line, isString := decodeString(raw)
	if !isString {
		ps.add("recurrence.cron", "must be a string such as \"15 5 * * 1-5\", not "+article(kindOf(raw)))
		return placeholder()
	}
	var both []string
	for _, k := range []string{"frequency", "interval", "schedule"} {
		if _, present := o.get(k); present {
			both = append(both, k)
		}
	}
	if len(both) > 0 {
		ps.add("recurrence.cron", fmt.Sprintf("use either cron or frequency/schedule, not both (%s given too)", strings.Join(both, ", ")))
		for k := range out {
			if slices.ContainsFunc([]string{"frequency", "interval", "schedule"}, func(m string) bool { return strings.EqualFold(k, m) }) {
				delete(out, k)
			}
		}
		return placeholder()
	}
	c, err := ParseCron(line)
	if err != nil {
		ps.add("recurrence.cron", err.Error())
		return placeholder()
	}
	if c.TimeZone != "" {
		if tz, given := o.get("timeZone"); given {
			if s, _ := decodeString(tz); !strings.EqualFold(s, c.TimeZone) {
				ps.add("recurrence.cron", fmt.Sprintf("CRON_TZ=%s differs from recurrence.timeZone %q: give the zone once", c.TimeZone, s))
				return placeholder()
			}
		}
		for k := range out {
			if strings.EqualFold(k, "timeZone") {
				delete(out, k)
			}
		}
		out["timeZone"], _ = json.Marshal(c.TimeZone)
	}
	j := &Job{Recurrence: &Recurrence{Frequency: c.Frequency, Interval: 1, Schedule: c.Schedule}}
	rec, _ := decodeObject(j.marshalRecurrence(MarshalOptions{}))
	out["frequency"], out["schedule"] = rec["frequency"], rec["schedule"]
	return out
}
