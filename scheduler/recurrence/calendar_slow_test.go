package recurrence

// This file keeps the calendar search as it was before the span index and
// the shortcuts of calendar_next.go (commit c19622f), with a plain binary
// search over the spans: the slow path that TestCalendarFastPath compares
// the fast one with.

import (
	"math"

	"sked/models/jobdef"
)

// slowFirst returns the first execution at or after t0 (Unix seconds): the
// rule's regular occurrences, with those on days of its calendars skipped or
// moved (SPEC §13.6). A moved occurrence keeps its time of day and stays
// strictly between its neighbouring regular occurrences, so executions keep
// their order and a move never merges two runs: one that would reach a
// neighbour is dropped. Each step of the search passes at least one span of
// slowExcluded days, so the search ends after at most as many steps as the
// calendars have spans, even when they exclude every day.
func (r *Rule) slowFirst(t0 int64) (execution, bool) {
	if len(r.cals) == 0 {
		o, ok := r.regular(t0)
		return execution{occurrence: o}, ok
	}
	switch r.onExcluded {
	case jobdef.ExcludedNextDay:
		return r.slowFirstNextDay(t0)
	case jobdef.ExcludedPreviousDay:
		return r.slowFirstPreviousDay(t0)
	}
	return r.slowFirstSkip(t0)
}

// slowCalendarSteps bounds the search of first: one step per span of excluded
// days, plus a few.
func (r *Rule) slowCalendarSteps() int {
	n := 8
	for _, c := range r.cals {
		n += len(c.spans)
	}
	return n
}

// slowExcluded reports whether a calendar of the rule excludes the day of
// instant u and, if so, the earliest instant at which one of the spans that
// exclude it ends.
func (r *Rule) slowExcluded(u int64) (end int64, ok bool) {
	end = math.MaxInt64
	for _, c := range r.cals {
		if e, ex := c.slowExclusionEnd(u); ex {
			ok, end = true, min(end, e)
		}
	}
	return end, ok
}

// slowWalk searches from t0 for the first execution: a regular occurrence no
// calendar excludes, or what onExcluded makes of an excluded one o (with
// end, the instant its excluded days end, and t0 the current lower bound):
// a moved occurrence (ok), or else the instant to search on from.
func (r *Rule) slowWalk(t0 int64, onExcluded func(o occurrence, end, t0 int64) (m execution, ok bool, next int64)) (execution, bool) {
	return r.slowWalkFrom(t0, occurrence{}, false, false, onExcluded)
}

// slowWalkFrom is walk, given the first regular occurrence at or after t0 (o,
// when ok) if known.
func (r *Rule) slowWalkFrom(t0 int64, o occurrence, ok, known bool, onExcluded func(o occurrence, end, t0 int64) (m execution, ok bool, next int64)) (execution, bool) {
	for i := range r.slowCalendarSteps() {
		if i > 0 || !known {
			o, ok = r.regular(t0)
		}
		if !ok {
			return execution{}, false
		}
		end, ex := r.slowExcluded(o.at)
		if !ex {
			return execution{occurrence: o}, true
		}
		m, moved, next := onExcluded(o, end, t0)
		if moved {
			return m, true
		}
		if end == math.MaxInt64 {
			return execution{}, false // excluded for ever
		}
		t0 = next
	}
	return execution{}, false
}

// slowFirstSkip drops the occurrences on excluded days.
func (r *Rule) slowFirstSkip(t0 int64) (execution, bool) {
	return r.slowWalk(t0, func(o occurrence, end, _ int64) (execution, bool, int64) {
		return execution{}, false, max(end, o.at+1)
	})
}

// slowFirstNextDay moves an occurrence on an excluded day to the nearest later
// day that is not excluded. Of the regular occurrences within one span of
// slowExcluded days only the last can move up to the next regular occurrence,
// so each span costs one look back (prevRegular) and one move.
func (r *Rule) slowFirstNextDay(t0 int64) (execution, bool) {
	// The regular occurrence before t0 may have moved to t0 or later. Then
	// the move passed excluded days up to a day before it, so the look back
	// is needed only when an excluded day lies within a day before t0.
	var first occurrence
	var hasFirst, known bool
	if r.slowNearExclusion(t0) {
		p, ok, n, more := r.slowAround(t0)
		if ok {
			if _, ex := r.slowExcluded(p.at); ex {
				if m, ok := r.slowMovedForward(p, n, more); ok && m.at >= t0 {
					return m, true
				}
			}
		}
		first, hasFirst, known = n, more, true
	}
	return r.slowWalkFrom(t0, first, hasFirst, known, func(o occurrence, end, _ int64) (execution, bool, int64) {
		last := o
		n, more := r.regular(o.at + 1)
		if more && n.at < end {
			// More regular runs in the span: only the last can move.
			if q, ok := r.slowPrevRegular(end); ok && q.at > o.at {
				last = q
				n, more = r.regular(q.at + 1)
			}
		}
		m, ok := r.slowMovedForward(last, n, more)
		return m, ok, max(end, last.at+1)
	})
}

// slowFirstPreviousDay moves an occurrence on an excluded day to the nearest
// earlier day that is not excluded. Of the regular occurrences within one
// span only the first can move back as far as the previous regular
// occurrence.
func (r *Rule) slowFirstPreviousDay(t0 int64) (execution, bool) {
	return r.slowWalk(t0, func(o occurrence, end, t0 int64) (execution, bool, int64) {
		m, ok := r.slowMovedBackward(o)
		return m, ok && m.at >= t0, max(end, o.at+1)
	})
}

// slowMovedForward returns o moved to the nearest later day that no calendar
// excludes, at the same wall-clock time of day, unless that passes the next
// regular occurrence n (more is false when there is none) or endTime. A
// move onto the next regular occurrence merges with it (one run).
func (r *Rule) slowMovedForward(o, n occurrence, more bool) (execution, bool) {
	m, ok := r.slowMoveByDays(o, 1)
	if !ok || (r.hasUntil && m.at > r.until) || (more && m.at > n.at) {
		return execution{}, false
	}
	return m, true
}

// slowMovedBackward returns o moved to the nearest earlier day that no calendar
// excludes, unless that passes back beyond the previous regular occurrence
// or before the job's creation or start. A move onto the previous regular
// occurrence merges with it (one run, already returned before).
func (r *Rule) slowMovedBackward(o occurrence) (execution, bool) {
	m, ok := r.slowMoveByDays(o, -1)
	if !ok || m.at < max(r.created, r.anchor) {
		return execution{}, false
	}
	// A regular occurrence strictly between m and o means m passed the
	// previous one (m on the previous one itself merges with it).
	if q, ok := r.regular(m.at + 1); ok && q.at < o.at {
		return execution{}, false
	}
	return m, true
}

// slowMoveByDays moves o by whole days of the job's wall clock in direction dir
// (+1 or -1) until it lands on a day no calendar excludes, jumping over each
// span of excluded days at once.
func (r *Rule) slowMoveByDays(o occurrence, dir int64) (execution, bool) {
	k := dir
	for range r.slowCalendarSteps() {
		w := o.wall + k*secondsPerDay
		if w < minWall || w > maxWall {
			return execution{}, false
		}
		u, res := r.zone.resolve(w)
		if dir > 0 {
			end, ex := r.slowExcluded(u)
			if !ex {
				return execution{occurrence{at: u, wall: w, res: res}, o.at}, true
			}
			if end == math.MaxInt64 {
				return execution{}, false // excluded for ever
			}
			// Jump to the first day of the job's clock that can lie past the span.
			k = max(k+1, floorDiv(r.zone.wall(end)-o.wall+secondsPerDay-1, secondsPerDay))
			continue
		}
		start, ex := r.slowExclusionStart(u)
		if !ex {
			return execution{occurrence{at: u, wall: w, res: res}, o.at}, true
		}
		// Jump to the last day of the job's clock that can lie before the span.
		k = min(k-1, floorDiv(r.zone.wall(start)-1-o.wall, secondsPerDay))
	}
	return execution{}, false
}

// slowExclusionStart is excluded looking backwards: whether the day of u is
// slowExcluded and the latest instant at which one of its spans begins.
func (r *Rule) slowExclusionStart(u int64) (start int64, ok bool) {
	start = math.MinInt64
	for _, c := range r.cals {
		if b, ex := c.slowExclusionStart(u); ex {
			ok, start = true, max(start, b)
		}
	}
	return start, ok
}

// slowNearExclusion reports whether a calendar excludes an instant within the
// 26 hours up to instant u (a day of the job's clock, with room for a
// daylight-saving change).
func (r *Rule) slowNearExclusion(u int64) bool {
	for _, c := range r.cals {
		if c.slowExcludesWithin(u-secondsPerDay-2*3600, u) {
			return true
		}
	}
	return false
}

// slowPrevRegular returns the last regular occurrence before t (Unix seconds).
func (r *Rule) slowPrevRegular(t int64) (occurrence, bool) {
	p, ok, _, _ := r.slowAround(t)
	return p, ok
}

// slowAround returns the last regular occurrence before t (p, when hasP) and
// the first at or after t (n, when hasN): it looks back over windows
// growing fourfold from the rule's period, then walks forward through the
// window where one was found.
func (r *Rule) slowAround(t int64) (p occurrence, hasP bool, n occurrence, hasN bool) {
	lowest := min(r.created, r.anchor) - 1
	for d := r.slowPeriodSeconds(); ; d *= 4 {
		s := max(t-d, lowest)
		o, ok := r.regular(s)
		switch {
		case ok && o.at < t:
			for {
				next, more := r.regular(o.at + 1)
				if !more || next.at >= t {
					return o, true, next, more
				}
				o = next
			}
		case ok:
			n, hasN = o, true // the first at or after t; look further back for p
		}
		if s == lowest || d > 500*366*secondsPerDay {
			return occurrence{}, false, n, hasN
		}
	}
}

// slowPeriodSeconds returns about how long one period of the rule lasts (the
// interval in its frequency's unit, a month as 28 days and a year as 365).
func (r *Rule) slowPeriodSeconds() int64 {
	var unit int64
	switch r.freq {
	case jobdef.Minute:
		unit = 60
	case jobdef.Hour:
		unit = 3600
	case jobdef.Day:
		unit = secondsPerDay
	case jobdef.Week:
		unit = 7 * secondsPerDay
	case jobdef.Month:
		unit = 28 * secondsPerDay
	case jobdef.Year:
		unit = 365 * secondsPerDay
	}
	return max(unit*r.interval, 60)
}

// slowSpanAt is spanAt without the index: a binary search over all spans.
func (c *Calendar) slowSpanAt(u int64) int {
	lo, hi := 0, len(c.ispans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.ispans[m].end <= u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// slowExclusionEnd is exclusionEnd with slowSpanAt.
func (c *Calendar) slowExclusionEnd(u int64) (int64, bool) {
	if i := c.slowSpanAt(u); i < len(c.ispans) && c.ispans[i].start <= u {
		return c.ispans[i].end, true
	}
	return 0, false
}

// slowExclusionStart is exclusionStart with slowSpanAt.
func (c *Calendar) slowExclusionStart(u int64) (int64, bool) {
	if i := c.slowSpanAt(u); i < len(c.ispans) && c.ispans[i].start <= u {
		return c.ispans[i].start, true
	}
	return 0, false
}

// slowExcludesWithin is excludesWithin with slowSpanAt.
func (c *Calendar) slowExcludesWithin(lo, hi int64) bool {
	i := c.slowSpanAt(lo)
	return i < len(c.ispans) && c.ispans[i].start <= hi
}
