package recurrence

import (
	"math"
	"math/bits"

	"sked/models/jobdef"
)

// first returns the first execution at or after t0 (Unix seconds): the
// rule's regular occurrences, with those on days of its calendars skipped or
// moved (SPEC §13.6). A moved occurrence keeps its time of day and stays
// strictly between its neighbouring regular occurrences, so executions keep
// their order and a move never merges two runs: one that would reach a
// neighbour is dropped. Each step of the search passes at least one span of
// excluded days, so the search ends after at most as many steps as the
// calendars have spans, even when they exclude every day.
func (r *Rule) first(t0 int64) (execution, bool) {
	if len(r.cals) == 0 {
		o, ok := r.regular(t0)
		return execution{occurrence: o}, ok
	}
	switch r.onExcluded {
	case jobdef.ExcludedNextDay:
		return r.firstNextDay(t0)
	case jobdef.ExcludedPreviousDay:
		return r.firstPreviousDay(t0)
	}
	return r.firstSkip(t0)
}

// calendarSteps bounds the search of first: one step per span of excluded
// days, plus a few.
func (r *Rule) calendarSteps() int {
	n := 8
	for _, c := range r.cals {
		n += len(c.spans)
	}
	return n
}

// excluded reports whether a calendar of the rule excludes the day of
// instant u and, if so, the earliest instant at which one of the spans that
// exclude it ends.
func (r *Rule) excluded(u int64) (end int64, ok bool) {
	end = math.MaxInt64
	for _, c := range r.cals {
		if e, ex := c.exclusionEnd(u); ex {
			ok, end = true, min(end, e)
		}
	}
	return end, ok
}

// walk searches from t0 for the first execution: a regular occurrence no
// calendar excludes, or what onExcluded makes of an excluded one o (with
// end, the instant its excluded days end, and t0 the current lower bound):
// a moved occurrence (ok), or else the instant to search on from.
func (r *Rule) walk(t0 int64, onExcluded func(o occurrence, end, t0 int64) (m execution, ok bool, next int64)) (execution, bool) {
	return r.walkFrom(t0, occurrence{}, false, false, onExcluded)
}

// walkFrom is walk, given the first regular occurrence at or after t0 (o,
// when ok) if known. The common case, an occurrence no calendar excludes,
// returns at once.
func (r *Rule) walkFrom(t0 int64, o occurrence, ok, known bool, onExcluded func(o occurrence, end, t0 int64) (m execution, ok bool, next int64)) (execution, bool) {
	if !known {
		o, ok = r.regular(t0)
	}
	if !ok {
		return execution{}, false
	}
	end, ex := r.excluded(o.at)
	if !ex {
		return execution{occurrence: o}, true
	}
	steps := r.calendarSteps()
	for i := 0; ; {
		m, moved, next := onExcluded(o, end, t0)
		if moved {
			return m, true
		}
		if end == math.MaxInt64 {
			return execution{}, false // excluded for ever
		}
		t0 = next
		if i++; i >= steps {
			return execution{}, false
		}
		if o, ok = r.regular(t0); !ok {
			return execution{}, false
		}
		if end, ex = r.excluded(o.at); !ex {
			return execution{occurrence: o}, true
		}
	}
}

// firstSkip drops the occurrences on excluded days.
func (r *Rule) firstSkip(t0 int64) (execution, bool) {
	return r.walk(t0, func(o occurrence, end, _ int64) (execution, bool, int64) {
		return execution{}, false, max(end, o.at+1)
	})
}

// firstNextDay moves an occurrence on an excluded day to the nearest later
// day that is not excluded. Of the regular occurrences within one span of
// excluded days only the last can move up to the next regular occurrence,
// so each span costs one look back (around) and one move.
func (r *Rule) firstNextDay(t0 int64) (execution, bool) {
	// The regular occurrence before t0 may have moved to t0 or later. Then
	// the move passed excluded days up to a day before it, so the look back
	// is needed only when an excluded day lies within a day before t0.
	clear, near := r.nearExclusion(t0)
	if near && !r.lookBackNeeded(t0) {
		near = false // and clear is 0: the occurrence is looked up
	}
	if !near {
		// No look back; and nothing is excluded before clear, so an
		// occurrence before it needs no look-up either.
		o, ok := r.regular(t0)
		if ok && o.at < clear {
			return execution{occurrence: o}, true
		}
		return r.walkFrom(t0, o, ok, true, r.nextDayMove)
	}
	p, ok, n, more := r.around(t0)
	if ok {
		if _, ex := r.excluded(p.at); ex {
			if m, ok := r.movedForward(p, n, more); ok && m.at >= t0 {
				return m, true
			}
		}
	}
	return r.walkFrom(t0, n, more, true, r.nextDayMove)
}

// nextDayMove is what firstNextDay makes of an excluded occurrence o whose
// excluded days end at end: the last regular occurrence of the span, moved
// to the next day not excluded (or dropped), and the span's end to search
// on from.
func (r *Rule) nextDayMove(o occurrence, end, _ int64) (execution, bool, int64) {
	if g := r.minGap(); g > 0 && end < o.at+g {
		// No other regular run in the span, and none up to a move that
		// stays within the gap: the move needs neither.
		if m, ok := r.moveByDays(o, 1); !ok || m.at < o.at+g {
			return m, ok && !(r.hasUntil && m.at > r.until), max(end, o.at+1)
		}
	}
	last := o
	n, more := r.regular(o.at + 1)
	if more && n.at < end {
		// More regular runs in the span: only the last can move.
		if q, ok, qn, qmore := r.around(end); ok && q.at > o.at {
			last, n, more = q, qn, qmore
		}
	}
	m, ok := r.movedForward(last, n, more)
	return m, ok, max(end, last.at+1)
}

// firstPreviousDay moves an occurrence on an excluded day to the nearest
// earlier day that is not excluded. Of the regular occurrences within one
// span only the first can move back as far as the previous regular
// occurrence; a move back to the previous one merges with it, already
// returned, and one beyond it lies before t0 (the search passed it).
func (r *Rule) firstPreviousDay(t0 int64) (execution, bool) {
	return r.walk(t0, func(o occurrence, end, t0 int64) (execution, bool, int64) {
		m, ok := r.movedBackward(o, t0)
		return m, ok, max(end, o.at+1)
	})
}

// minGap returns a lower bound on the time between two consecutive regular
// occurrences, or 0 when it offers none: for a rule of days or of weeks at
// one time of day, whose wall times lie whole days apart, the fewest days
// between two of them less the largest change of offset (2·maxOffsetSpan,
// as an instant is its wall time less an offset within ±maxOffsetSpan).
// One-time jobs, a run at creation and elapsed rules have no such bound.
func (r *Rule) minGap() int64 {
	if _, ok := r.oneTimeOfDay(); !ok {
		return 0
	}
	var days int64
	switch r.freq {
	case jobdef.Day:
		days = r.interval
	case jobdef.Week:
		first, prev := int64(-1), int64(-1)
		for i := int64(0); i < 7; i++ {
			if r.weekMask&(1<<i) == 0 {
				continue
			}
			if prev >= 0 {
				days = min(days, i-prev)
			} else {
				first, days = i, 7*r.interval
			}
			prev = i
		}
		if first < 0 {
			return 0
		}
		days = min(days, 7*r.interval-prev+first) // to the first day of the next week of the rule
	default:
		return 0
	}
	return max(days*secondsPerDay-2*maxOffsetSpan, 0)
}

// oneTimeOfDay reports whether every regular occurrence of the rule has
// the same wall time of day, tod (seconds): a rule with one hour and one
// minute, neither elapsed nor one-time nor with a run at creation.
func (r *Rule) oneTimeOfDay() (tod int64, ok bool) {
	if r.once || r.runNow || r.elapsed || bits.OnesCount32(r.hourMask) != 1 || bits.OnesCount64(r.minMask) != 1 {
		return 0, false
	}
	return int64(bits.TrailingZeros32(r.hourMask))*3600 + int64(bits.TrailingZeros64(r.minMask))*60 + r.sec, true
}

// lookBackNeeded reports whether firstNextDay must look back from t0 for a
// regular occurrence moved to t0 or later, once an excluded day lies within
// a day before t0. It need not for a rule at one time of day when the job's
// offset holds from three days before t0 to two days after it and the last
// instant before t0 at that time of day, uL, is not excluded: regular
// occurrences and their moves all lie at that time of day, where the
// instants within the stretch are whole days apart; a regular occurrence
// before t0 excluded, moved to t0 or later, would have been moved past uL,
// so uL would be excluded (either it was tried, or the move jumped over it
// within a span of excluded days).
func (r *Rule) lookBackNeeded(t0 int64) bool {
	tod, ok := r.oneTimeOfDay()
	if !ok {
		return true
	}
	p := r.zone.periodAt(t0)
	if p.start > t0-3*secondsPerDay || p.end < t0+2*secondsPerDay {
		return true
	}
	uL := t0 - 1 - floorMod(t0-1+p.off-tod, secondsPerDay)
	_, ex := r.excluded(uL)
	return ex
}

// movedForward returns o moved to the nearest later day that no calendar
// excludes, at the same wall-clock time of day, unless that passes the next
// regular occurrence n (more is false when there is none) or endTime. A
// move onto the next regular occurrence merges with it (one run).
func (r *Rule) movedForward(o, n occurrence, more bool) (execution, bool) {
	m, ok := r.moveByDays(o, 1)
	if !ok || (r.hasUntil && m.at > r.until) || (more && m.at > n.at) {
		return execution{}, false
	}
	return m, true
}

// movedBackward returns o, the first regular occurrence at or after lo,
// moved to the nearest earlier day that no calendar excludes, unless that
// lies before lo (a move the search has passed already) or before the job's
// creation or start. A move back to lo or later passes no other regular
// occurrence (none lies from lo up to o) and merges with none.
func (r *Rule) movedBackward(o occurrence, lo int64) (execution, bool) {
	m, ok := r.moveByDays(o, -1)
	if !ok || m.at < max(r.created, r.anchor, lo) {
		return execution{}, false
	}
	return m, true
}

// moveByDays moves o by whole days of the job's wall clock in direction dir
// (+1 or -1) until it lands on a day no calendar excludes, jumping over each
// span of excluded days at once.
func (r *Rule) moveByDays(o occurrence, dir int64) (execution, bool) {
	k := dir
	for range r.calendarSteps() {
		w := o.wall + k*secondsPerDay
		if w < minWall || w > maxWall {
			return execution{}, false
		}
		u, res := r.zone.resolve(w)
		if dir > 0 {
			end, ex := r.excluded(u)
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
		start, ex := r.exclusionStart(u)
		if !ex {
			return execution{occurrence{at: u, wall: w, res: res}, o.at}, true
		}
		// Jump to the last day of the job's clock that can lie before the span.
		k = min(k-1, floorDiv(r.zone.wall(start)-1-o.wall, secondsPerDay))
	}
	return execution{}, false
}

// exclusionStart is excluded looking backwards: whether the day of u is
// excluded and the latest instant at which one of its spans begins.
func (r *Rule) exclusionStart(u int64) (start int64, ok bool) {
	start = math.MinInt64
	for _, c := range r.cals {
		if b, ex := c.exclusionStart(u); ex {
			ok, start = true, max(start, b)
		}
	}
	return start, ok
}

// nearExclusion reports whether a calendar excludes an instant within the
// 26 hours up to instant u (a day of the job's clock, with room for a
// daylight-saving change) and, when none does, the instant before which
// none excludes any from there on (math.MaxInt64 when none ever does).
func (r *Rule) nearExclusion(u int64) (clear int64, near bool) {
	clear = math.MaxInt64
	for _, c := range r.cals {
		i := c.spanAt(u - secondsPerDay - 2*3600)
		if i < len(c.ispans) {
			if c.ispans[i].start <= u {
				return 0, true
			}
			clear = min(clear, c.ispans[i].start)
		}
	}
	return clear, false
}

// around returns the last regular occurrence before t (p, when hasP) and
// the first at or after t (n, when hasN): it looks back over windows
// growing fourfold from the rule's period, then walks forward through the
// window where one was found.
func (r *Rule) around(t int64) (p occurrence, hasP bool, n occurrence, hasN bool) {
	lowest := min(r.created, r.anchor) - 1
	for d := r.periodSeconds(); ; d *= 4 {
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

// periodSeconds returns about how long one period of the rule lasts (the
// interval in its frequency's unit, a month as 28 days and a year as 365).
func (r *Rule) periodSeconds() int64 {
	var unit int64
	switch r.freq {
	case jobdef.Second:
		unit = 1
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
