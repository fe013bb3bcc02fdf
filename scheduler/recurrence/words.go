package recurrence

import (
	"fmt"
	"strings"
	"time"
)

// ordinalWords spells the first ten ordinals; larger ones use digits.
var ordinalWords = [...]string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}

// ordinal returns "first" … "tenth", then "11th", "21st", "22nd", "23rd" ….
func ordinal(n int) string {
	if n >= 1 && n < len(ordinalWords) {
		return ordinalWords[n]
	}
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// dayOrdinal names a month day counted from the start (1 → "first") or the
// end (-1 → "last", -2 → "second-to-last").
func dayOrdinal(n int) string {
	switch {
	case n == -1:
		return "last"
	case n < 0:
		return ordinal(-n) + "-to-last"
	}
	return ordinal(n)
}

// joinAnd joins items as "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// clock formats a time of day as 15:04, or 15:04:05 when it has seconds.
func clock(h, m, s int64) string {
	if s != 0 {
		return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

// plural returns "every unit" or "every n units".
func plural(n int64, unit string) string {
	if n == 1 {
		return "every " + unit
	}
	return fmt.Sprintf("every %d %ss", n, unit)
}

// weekdayName returns the English name of a Sunday-first weekday number.
func weekdayName(d int64) string { return time.Weekday(d).String() }

// monthName returns the English name of month m (1–12).
func monthName(m int64) string { return time.Month(m).String() }

// bitsOf lists the set bits of mask below limit, ascending.
func bitsOf(mask uint64, limit int64) []int64 {
	var out []int64
	for i := int64(0); i < limit; i++ {
		if mask&(1<<i) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
