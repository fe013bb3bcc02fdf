package recurrence

import "time"

// gapSamples bounds how many occurrences MinGap looks at.
const gapSamples = 1000

// MinGap returns the smallest time between two consecutive occurrences of
// the rule after from, looking at the first 1,000 occurrences or the first
// 400 days of them, whichever ends first (a schedule's pattern repeats
// within a year, leap days and daylight saving aside). ok is false when the
// rule has fewer than two occurrences after from.
func (r *Rule) MinGap(from time.Time) (gap time.Duration, ok bool) {
	prev, found := r.Next(from)
	if !found {
		return 0, false
	}
	horizon := prev.Add(400 * 24 * time.Hour)
	for i := 0; i < gapSamples; i++ {
		next, found := r.Next(prev)
		if !found || next.After(horizon) {
			break
		}
		if d := next.Sub(prev); !ok || d < gap {
			gap, ok = d, true
		}
		prev = next
	}
	return gap, ok
}
