package calics

import (
	"fmt"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// moment is a DTSTART, DTEND, EXDATE or UNTIL value: a date (all-day) or
// an instant.
type moment struct {
	allDay bool
	date   caldef.Date // the date of an all-day value
	t      time.Time   // the instant of a timed value
}

// dayIn returns the calendar day of m on loc's wall clock.
func (m moment) dayIn(loc *time.Location) caldef.Date {
	if m.allDay {
		return m.date
	}
	return caldef.DateOf(m.t.In(loc))
}

// parseValue reads one date or date-time value: "20261225",
// "20261225T100000Z", or "20261225T100000" in the zone tzid (a floating
// time, without tzid, is on the calendar's wall clock loc).
func parseValue(v, tzid string, loc *time.Location) (moment, error) {
	v = strings.TrimSpace(v)
	if len(v) == 8 {
		t, err := time.Parse("20060102", v)
		if err != nil {
			return moment{}, fmt.Errorf("%q is not a date", v)
		}
		return moment{allDay: true, date: caldef.DateOf(t)}, nil
	}
	if strings.HasSuffix(v, "Z") {
		t, err := time.Parse("20060102T150405Z", v)
		if err != nil {
			return moment{}, fmt.Errorf("%q is not a date-time", v)
		}
		return moment{t: t}, nil
	}
	zone := loc
	if tzid != "" {
		z, err := jobdef.LoadZone(strings.Trim(tzid, `"`))
		if err != nil {
			return moment{}, fmt.Errorf("TZID %q is not a known time zone", tzid)
		}
		zone = z
	}
	wall, err := time.Parse("20060102T150405", v)
	if err != nil {
		return moment{}, fmt.Errorf("%q is not a date-time", v)
	}
	// The rule of RFC 5545 §3.3.5 and SPEC §2 alike: a time the clocks skip
	// moves forward by the gap, a repeated one is its first instant
	// (time.ParseInLocation may put 00:30 of a day whose midnight is
	// skipped at 23:30 of the day before).
	return moment{t: recurrence.WallInstant(wall, zone)}, nil
}

// propMoments reads every value of the properties (EXDATE may hold
// several, comma-separated, and appear several times).
func propMoments(props []*ics.IANAProperty, loc *time.Location) ([]moment, error) {
	var out []moment
	for _, p := range props {
		tzid := param(p, "TZID")
		for _, v := range strings.Split(p.Value, ",") {
			if strings.TrimSpace(v) == "" {
				continue
			}
			m, err := parseValue(v, tzid, loc)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// param returns the first value of a property's parameter, or "".
func param(p *ics.IANAProperty, name string) string {
	if p == nil {
		return ""
	}
	for k, vs := range p.ICalParameters {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// parseDuration reads an RFC 5545 duration (P1D, PT2H30M, P1W, -P1D).
func parseDuration(s string) (time.Duration, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	if !strings.HasPrefix(s, "P") {
		return 0, false
	}
	s = s[1:]
	var d time.Duration
	inTime := false
	num := 0
	digits := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			num = num*10 + int(r-'0')
			digits = true
			continue
		case r == 'T':
			inTime = true
			continue
		}
		if !digits {
			return 0, false
		}
		n := time.Duration(num)
		switch {
		case r == 'W' && !inTime:
			d += n * 7 * 24 * time.Hour
		case r == 'D' && !inTime:
			d += n * 24 * time.Hour
		case r == 'H' && inTime:
			d += n * time.Hour
		case r == 'M' && inTime:
			d += n * time.Minute
		case r == 'S' && inTime:
			d += n * time.Second
		default:
			return 0, false
		}
		num, digits = 0, false
	}
	if digits {
		return 0, false
	}
	if neg {
		d = -d
	}
	return d, true
}

// addDays returns d plus n days.
func addDays(d caldef.Date, n int) caldef.Date {
	return caldef.DateOf(d.Time().AddDate(0, 0, n))
}
