package jobdef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Cron input (SPEC §13.7).
//
// A crontab line is converted to a recurrence whose occurrences are exactly
// cron's. The conversion never uses an interval (an interval counts from the
// anchor, cron does not) and always writes every schedule element that would
// otherwise default from the anchor (SPEC §2), so the result does not depend
// on the job's startTime or creation time:
//
// A field that lists every value of its range counts as unrestricted.
//
//	line shape (after normalising)                  frequency  schedule
//	minute, hour, dom, month, dow all *              minute     minutes 0–59
//	only the minute restricted                       hour       minutes
//	hour restricted, days and months *               day        minutes, hours
//	day-of-week restricted (plain days)              week       minutes, hours, weekDays
//	day-of-month restricted, L, L-n, 5L or 5#3       month      minutes, hours, monthDays or monthlyOccurrences
//	month restricted                                 year       minutes, hours, months, monthDays or monthlyOccurrences
//
// Steps are expanded into lists: cron applies a step within one field only
// (*/7 in the minute field is 0,7,…,56 in every hour, and the next hour starts
// again at :00), which a list of minutes reproduces exactly; so no step is
// refused. Refused, with the reason: seconds or year fields (6 or 7 fields),
// @reboot and @every, a restricted day-of-month together with a restricted
// day-of-week (cron runs when EITHER matches, a recurrence can only require
// both), W (nearest weekday), L alone in day-of-week, ? outside the day
// fields, and lines that can never run (30 February). A job without a
// startTime gets CronStart, so that it does not also run at creation. In a
// time zone the wall-clock times follow SPEC §2's daylight-saving rules (a
// time in the spring-forward gap runs shifted by the gap, a repeated time
// once), which cron implementations do not agree on.

// Cron is a crontab line converted to a recurrence: Frequency and Schedule
// replace recurrence.frequency and recurrence.schedule (the interval is 1).
type Cron struct {
	// Frequency is the frequency that makes the schedule exact.
	Frequency Frequency
	// Schedule gives every element the frequency would otherwise take from
	// the anchor; never nil.
	Schedule *Schedule
	// TimeZone is the zone of a leading CRON_TZ= or TZ= prefix, "" when the
	// line has none.
	TimeZone string
}

// CronError is a crontab line that Sked refuses; its message says why.
type CronError struct {
	// Reason explains the refusal, without the field name.
	Reason string
}

// Error returns the reason.
func (e *CronError) Error() string { return e.Reason }

// cronErr returns a *CronError with the formatted reason.
func cronErr(format string, args ...any) error {
	return &CronError{Reason: fmt.Sprintf(format, args...)}
}

// cronNicknames maps the @ forms to their five fields.
var cronNicknames = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// cronMonthNames maps the lowercase month names of cron to 1–12.
var cronMonthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// cronDayNames maps the lowercase day names of cron to 0–6 (Sunday 0).
var cronDayNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// cronField describes one of the five fields.
type cronField struct {
	name   string
	lo, hi int
	names  map[string]int
}

// cronFields are the five fields in line order.
var cronFields = [5]cronField{
	{name: "minute", lo: 0, hi: 59},
	{name: "hour", lo: 0, hi: 23},
	{name: "day-of-month", lo: 1, hi: 31},
	{name: "month", lo: 1, hi: 12, names: cronMonthNames},
	{name: "day-of-week", lo: 0, hi: 7, names: cronDayNames},
}

// cronSet is one parsed field.
type cronSet struct {
	// star: the field is *, ? or */1 (cron's "unrestricted" for the day
	// fields' OR rule).
	star bool
	// vals holds the plain values (day-of-week 7 folded to 0).
	vals map[int]bool
	// fromEnd holds day-of-month values counted from the end (-1 = L).
	fromEnd map[int]bool
	// occ holds day-of-week Quartz forms (5L, 5#3).
	occ []MonthlyOccurrence
}

// full reports whether the plain values cover the whole range lo..hi (L
// and 5#3 then add nothing).
func (s *cronSet) full(lo, hi int) bool {
	for v := lo; v <= hi; v++ {
		if !s.vals[v] {
			return false
		}
	}
	return true
}

// sorted returns the plain values in ascending order.
func (s *cronSet) sorted() []int {
	out := make([]int, 0, len(s.vals))
	for v := range s.vals {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// ParseCron converts a crontab line (five fields: minute hour day-of-month
// month day-of-week; or an @ nickname; optionally preceded by CRON_TZ=Zone)
// to a recurrence. A line the recurrence cannot express exactly is refused
// with a *CronError saying why.
func ParseCron(line string) (*Cron, error) {
	line = strings.TrimSpace(line)
	c := &Cron{}
	if f := strings.Fields(line); len(f) > 0 {
		for _, p := range []string{"CRON_TZ=", "TZ="} {
			if len(f[0]) > len(p) && strings.EqualFold(f[0][:len(p)], p) {
				zone := f[0][len(p):]
				if _, err := LoadZone(zone); err != nil {
					return nil, cronErr("%s%s: %q is not a known IANA or Windows time zone", p, zone, zone)
				}
				c.TimeZone = zone
				line = strings.TrimSpace(line[len(f[0]):])
				break
			}
		}
	}
	if line == "" {
		return nil, cronErr("is empty: a cron line has five fields (minute hour day-of-month month day-of-week), e.g. \"15 5 * * 1-5\"")
	}
	if strings.HasPrefix(line, "@") {
		word := strings.ToLower(strings.Fields(line)[0])
		switch {
		case word == "@reboot":
			return nil, cronErr("@reboot runs when cron starts, not at a time of day: a schedule cannot express it")
		case word == "@every":
			return nil, cronErr("@every counts from when cron started: use frequency minute or hour with an interval and a startTime instead")
		}
		f, ok := cronNicknames[word]
		if !ok {
			return nil, cronErr("%q is not a cron nickname (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)", word)
		}
		if len(strings.Fields(line)) > 1 {
			return nil, cronErr("%s takes no fields after it", word)
		}
		line = f
	}
	fields := strings.Fields(line)
	switch n := len(fields); {
	case n == 6 || n == 7:
		return nil, cronErr("has %d fields: seconds (or year) fields are not supported, a job runs on whole minutes; write the five fields minute hour day-of-month month day-of-week", n)
	case n != 5:
		return nil, cronErr("has %d fields; a cron line has five: minute hour day-of-month month day-of-week", n)
	}
	var sets [5]*cronSet
	for i, f := range fields {
		s, err := parseCronField(f, cronFields[i])
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return buildCron(c, line, sets)
}

// parseCronField parses one field: a comma-separated list of *, ?, values,
// names, ranges and steps, plus L, L-n (day-of-month), nL and n#k
// (day-of-week).
func parseCronField(text string, fd cronField) (*cronSet, error) {
	s := &cronSet{vals: map[int]bool{}, fromEnd: map[int]bool{}}
	up := strings.ToUpper(text)
	isDay := fd.name == "day-of-month" || fd.name == "day-of-week"
	if strings.Contains(up, "W") && isDay && !strings.Contains(up, "WED") {
		return nil, cronErr("%s %q: W (the nearest weekday) is not supported: a recurrence cannot move a day to the nearest weekday", fd.name, text)
	}
	if text == "*" || text == "*/1" || text == "?" {
		if text == "?" && !isDay {
			return nil, cronErr("%s %q: ? is only meaningful in day-of-month or day-of-week", fd.name, text)
		}
		s.star = true
		for v := fd.lo; v <= fd.hi; v++ {
			s.vals[fold(fd, v)] = true
		}
		return s, nil
	}
	for _, item := range strings.Split(text, ",") {
		if err := s.addItem(item, fd); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fold maps day-of-week 7 to 0 (both are Sunday).
func fold(fd cronField, v int) int {
	if fd.name == "day-of-week" && v == 7 {
		return 0
	}
	return v
}

// value reads one number or name of the field.
func (fd cronField) value(text, whole string) (int, error) {
	if n, ok := fd.names[strings.ToLower(text)]; ok {
		return n, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || strings.HasPrefix(text, "+") || strings.HasPrefix(text, "-") {
		what := "a number"
		switch fd.name {
		case "month":
			what = "a number or a month name (JAN–DEC)"
		case "day-of-week":
			what = "a number or a day name (SUN–SAT)"
		}
		return 0, cronErr("%s %q: %q is not %s", fd.name, whole, text, what)
	}
	if n < fd.lo || n > fd.hi {
		return 0, cronErr("%s %q: %d is out of range %d–%d", fd.name, whole, n, fd.lo, fd.hi)
	}
	return n, nil
}

// addItem adds one list item of a field.
func (s *cronSet) addItem(item string, fd cronField) error {
	up := strings.ToUpper(item)
	if item == "" {
		return cronErr("%s: empty item in a list (two commas, or a trailing comma)", fd.name)
	}
	if fd.name == "day-of-month" && strings.HasPrefix(up, "L") {
		switch {
		case up == "L":
			s.fromEnd[-1] = true
			return nil
		case strings.HasPrefix(up, "L-"):
			n, err := strconv.Atoi(item[2:])
			if err != nil || n < 1 || n > 30 {
				return cronErr("day-of-month %q: L-n needs n between 1 and 30 (days before the last day)", item)
			}
			s.fromEnd[-(n + 1)] = true
			return nil
		}
		return cronErr("day-of-month %q: L is the last day of the month; L-n is n days before it", item)
	}
	if fd.name == "day-of-week" {
		if up == "L" {
			return cronErr("day-of-week %q: L alone means Saturday in Quartz and nothing in standard cron: write SAT, or 6L for the last Saturday of the month", item)
		}
		if d, ok := strings.CutSuffix(up, "L"); ok {
			v, err := fd.value(d, item)
			if err != nil {
				return err
			}
			s.occ = append(s.occ, MonthlyOccurrence{Day: time.Weekday(fold(fd, v)), Occurrence: -1})
			return nil
		}
		if d, k, ok := strings.Cut(item, "#"); ok {
			v, err := fd.value(d, item)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(k)
			if err != nil || n < 1 || n > 5 {
				return cronErr("day-of-week %q: #n needs n between 1 and 5 (the n-th such day of the month)", item)
			}
			s.occ = append(s.occ, MonthlyOccurrence{Day: time.Weekday(fold(fd, v)), Occurrence: n})
			return nil
		}
	}
	if strings.Contains(up, "L") && fd.names == nil || strings.Contains(item, "#") {
		return cronErr("%s %q: L and # are only allowed in day-of-month (L, L-3) and day-of-week (5L, 5#3)", fd.name, item)
	}
	if item == "?" || strings.Contains(item, "?") {
		return cronErr("%s %q: ? stands alone for the whole field", fd.name, item)
	}
	rng, stepText, hasStep := strings.Cut(item, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || strings.HasPrefix(stepText, "+") {
			return cronErr("%s %q: the step after / must be a whole number of at least 1", fd.name, item)
		}
		step = n
	}
	var lo, hi int
	switch a, b, isRange := strings.Cut(rng, "-"); {
	case isRange && a == "":
		return cronErr("%s %q: a range needs a start and an end (e.g. 1-5)", fd.name, item)
	case rng == "*":
		lo, hi = fd.lo, fd.hi
		if fd.name == "day-of-week" {
			hi = 6
		}
	case isRange:
		var err error
		if lo, err = fd.value(a, item); err != nil {
			return err
		}
		if b == "" {
			return cronErr("%s %q: a range needs a start and an end (e.g. 1-5)", fd.name, item)
		}
		if hi, err = fd.value(b, item); err != nil {
			return err
		}
		if fd.name == "day-of-week" && hi == 0 && lo > 0 { // SAT-SUN, 5-0: Sunday as 7
			hi = 7
		}
		if hi < lo {
			return cronErr("%s %q: the range runs backwards; write it as two ranges (e.g. 22-23,0-2 for hours)", fd.name, item)
		}
	default:
		var err error
		if lo, err = fd.value(rng, item); err != nil {
			return err
		}
		hi = lo
		if hasStep { // "5/15" means 5-max/15
			hi = fd.hi
			if fd.name == "day-of-week" {
				hi = max(lo, 6)
			}
		}
	}
	for v := lo; v <= hi; v += step {
		s.vals[fold(fd, v)] = true
	}
	return nil
}

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

// CronOf returns the crontab line equivalent to rec, and whether there is
// one. There is one only when the recurrence does not depend on its anchor
// (interval 1, and every element the frequency would take from the start
// time is given: minutes, hours from frequency day on, weekDays for week,
// monthDays or monthlyOccurrences for month and year, months for year) and
// cron can say it (no monthDays together with monthlyOccurrences, no counting
// from the end beyond L and nL). count, endTime and timeZone are not part of
// the line, nor are calendars: the line is the schedule they apply to.
func CronOf(rec *Recurrence) (string, bool) {
	if rec == nil || rec.Interval != 1 || rec.Schedule.IsEmpty() {
		return "", false
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
