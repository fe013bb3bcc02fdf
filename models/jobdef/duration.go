package jobdef

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseISODuration parses an ISO 8601 duration such as "PT60S", "PT1M30S",
// "PT0.5S", "P1D" or "P1DT2H". Years count as 365 days, months as 30 days and
// weeks as 7 days. A leading '-' is rejected: durations here are never
// negative.
func ParseISODuration(s string) (time.Duration, error) {
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return 0, fmt.Errorf("parse duration %q: must start with P", s)
	}
	const day = 24 * time.Hour
	units := map[byte]time.Duration{'Y': 365 * day, 'W': 7 * day, 'D': day}
	timeUnits := map[byte]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second}
	var total float64
	inTime, any := false, false
	i := 1
	for i < len(s) {
		c := s[i]
		if c == 'T' || c == 't' {
			if inTime {
				return 0, fmt.Errorf("parse duration %q: second T", s)
			}
			inTime = true
			i++
			continue
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == ',') {
			j++
		}
		if j == i || j >= len(s) {
			return 0, fmt.Errorf("parse duration %q: want a number followed by a unit", s)
		}
		num := 0.0
		frac, seenDot := 0.1, false
		for k := i; k < j; k++ {
			switch ch := s[k]; {
			case ch == '.' || ch == ',':
				if seenDot {
					return 0, fmt.Errorf("parse duration %q: bad number", s)
				}
				seenDot = true
			case seenDot:
				num += float64(ch-'0') * frac
				frac /= 10
			default:
				num = num*10 + float64(ch-'0')
			}
		}
		u := s[j]
		if u >= 'a' && u <= 'z' {
			u -= 'a' - 'A'
		}
		var unit time.Duration
		var ok bool
		if inTime {
			unit, ok = timeUnits[u]
		} else if u == 'M' {
			unit, ok = 30*day, true
		} else {
			unit, ok = units[u]
		}
		if !ok {
			return 0, fmt.Errorf("parse duration %q: unknown unit %q", s, string(s[j]))
		}
		total += num * float64(unit)
		any = true
		i = j + 1
	}
	if !any {
		return 0, fmt.Errorf("parse duration %q: no value", s)
	}
	if total > math.MaxInt64/2 {
		return 0, fmt.Errorf("parse duration %q: too large", s)
	}
	return time.Duration(total), nil
}

// ParseTimeSpan reads a duration given either in ISO 8601 ("PT30S") or in
// the .NET TimeSpan form "[d.]hh:mm:ss[.fff]" that the original service
// also accepted ("00:01:00").
func ParseTimeSpan(s string) (time.Duration, error) {
	return parseTimeSpan(s)
}

func parseTimeSpan(s string) (time.Duration, error) {
	if !strings.Contains(s, ":") {
		return ParseISODuration(s)
	}
	days, rest := 0, s
	if before, after, ok := strings.Cut(s, "."); ok && !strings.Contains(before, ":") {
		n, err := strconv.Atoi(before)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("parse duration %q: bad days", s)
		}
		days, rest = n, after
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("parse duration %q: want hh:mm:ss", s)
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec >= 60 {
		return 0, fmt.Errorf("parse duration %q: want hh:mm:ss", s)
	}
	if days > 10000 {
		return 0, fmt.Errorf("parse duration %q: too long", s)
	}
	return time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(sec*float64(time.Second)), nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func strconvFloat(f float64) string { return strconv.FormatFloat(f, 'f', 9, 64) }
