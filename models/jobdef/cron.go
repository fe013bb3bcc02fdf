package jobdef

import (
	"fmt"
	"strings"
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
