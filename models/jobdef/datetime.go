package jobdef

import (
	"fmt"
	"time"
)

// DateTime is an ISO 8601 date-time or date as given in the job JSON.
//
// Raw keeps the text exactly as sent. When HasOffset is true, Time is the
// instant (its location a fixed zone or UTC). When HasOffset is false, the
// value is a wall-clock time to be read in the job's time zone: Time then
// holds the wall-clock fields in time.UTC and must not be used as an instant
// before it is resolved in that zone (the recurrence package does this with
// the daylight-saving rules of SPEC §2). DateOnly marks a date without a time
// (00:00 of that day in the job's zone; it never has an offset).
type DateTime struct {
	Raw       string
	Time      time.Time
	HasOffset bool
	DateOnly  bool
}

// String returns the raw text.
func (d DateTime) String() string { return d.Raw }

// ParseDateTime parses an ISO 8601 date-time ("2012-08-04T00:00Z",
// "2013-01-09T09:30:00-08:00", "2015-07-13T14:00:00.123", with an optional
// offset Z, ±hh:mm, ±hhmm or ±hh; seconds and fractions optional; 'T' or a
// space between date and time) or, when dateOnly is allowed, a date alone
// ("2012-11-04"). Years run from 0001 to 9999. Fractions of seconds are kept
// in Time.
func ParseDateTime(s string, allowDateOnly bool) (DateTime, error) {
	d := DateTime{Raw: s}
	p := dtParser{s: s}
	year, ok1 := p.digits(4)
	ok2 := p.lit('-')
	month, ok3 := p.digits(2)
	ok4 := p.lit('-')
	day, ok5 := p.digits(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return d, fmt.Errorf("parse date-time %q: want YYYY-MM-DD", s)
	}
	if year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return d, fmt.Errorf("parse date-time %q: no such date", s)
	}
	if p.done() {
		if !allowDateOnly {
			return d, fmt.Errorf("parse date-time %q: a time is required", s)
		}
		d.DateOnly = true
		d.Time = time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
		return d, nil
	}
	if !(p.lit('T') || p.lit('t') || p.lit(' ')) {
		return d, fmt.Errorf("parse date-time %q: want 'T' after the date", s)
	}
	hour, ok1 := p.digits(2)
	ok2 = p.lit(':')
	minute, ok3 := p.digits(2)
	if !(ok1 && ok2 && ok3) {
		return d, fmt.Errorf("parse date-time %q: want hh:mm after 'T'", s)
	}
	sec, nsec := 0, 0
	if p.lit(':') {
		var ok bool
		if sec, ok = p.digits(2); !ok {
			return d, fmt.Errorf("parse date-time %q: want two digits of seconds", s)
		}
		if p.lit('.') || p.lit(',') {
			n, scale := 0, 0
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				if scale < 9 {
					n = n*10 + int(p.s[p.i]-'0')
					scale++
				}
				p.i++
			}
			if scale == 0 {
				return d, fmt.Errorf("parse date-time %q: want digits after the decimal point", s)
			}
			for ; scale < 9; scale++ {
				n *= 10
			}
			nsec = n
		}
	}
	if hour > 23 || minute > 59 || sec > 59 {
		return d, fmt.Errorf("parse date-time %q: no such time of day", s)
	}
	loc := time.UTC
	switch {
	case p.done():
	case p.lit('Z') || p.lit('z'):
		d.HasOffset = true
	case p.peek() == '+' || p.peek() == '-':
		sign := 1
		if p.s[p.i] == '-' {
			sign = -1
		}
		p.i++
		oh, ok := p.digits(2)
		if !ok {
			return d, fmt.Errorf("parse date-time %q: want an offset ±hh:mm", s)
		}
		om := 0
		if p.lit(':') {
			if om, ok = p.digits(2); !ok {
				return d, fmt.Errorf("parse date-time %q: want an offset ±hh:mm", s)
			}
		} else if !p.done() {
			if om, ok = p.digits(2); !ok {
				return d, fmt.Errorf("parse date-time %q: want an offset ±hh:mm", s)
			}
		}
		if oh > 18 || om > 59 {
			return d, fmt.Errorf("parse date-time %q: offset out of range", s)
		}
		d.HasOffset = true
		if off := sign * (oh*3600 + om*60); off != 0 {
			loc = time.FixedZone("", off)
		}
	}
	if !p.done() {
		return d, fmt.Errorf("parse date-time %q: unexpected %q", s, p.s[p.i:])
	}
	d.Time = time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	return d, nil
}

// dtParser is a tiny cursor over a date-time string.
type dtParser struct {
	s string
	i int
}

func (p *dtParser) done() bool { return p.i >= len(p.s) }

func (p *dtParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *dtParser) lit(c byte) bool {
	if p.peek() == c && !p.done() {
		p.i++
		return true
	}
	return false
}

func (p *dtParser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for k := 0; k < n; k++ {
		c := p.s[p.i+k]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// daysIn returns the number of days of month (1–12) in year.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
