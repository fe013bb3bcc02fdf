package recurrence

import (
	"math"
	"time"
)

// zone turns wall seconds into instants and back for one location, with the
// daylight-saving rules of SPEC §2.
type zone struct {
	loc   *time.Location
	fixed bool  // the location never changes its offset
	off   int64 // the offset of a fixed location, seconds east of UTC
}

// newZone prepares a zone for loc (nil means UTC).
func newZone(loc *time.Location) zone {
	if loc == nil {
		loc = time.UTC
	}
	z := zone{loc: loc}
	t := time.Unix(0, 0).In(loc)
	start, end := t.ZoneBounds()
	if start.IsZero() && end.IsZero() {
		_, off := t.Zone()
		z.fixed, z.off = true, int64(off)
	}
	return z
}

// period describes the stretch of time around an instant during which the
// zone's offset is constant: [start, end), bounds ±Inf when unbounded.
type period struct {
	off        int64
	start, end int64
}

// periodAt returns the offset period containing instant u (Unix seconds).
//
// It trusts time.Time.ZoneBounds only where its answer holds u: for the
// last UTC day of a leap year past the zone's explicit transitions (from
// 2037 or so, where Go extends the zone by its TZ rule), ZoneBounds returns
// the period that ended at the start of that day (Go issue 81583: the rule's
// year end is computed as if every year had 365 days). The period is then
// rebuilt from the bounds of its neighbours, checking that the offset is the
// same on both sides of each seam (repairPeriod).
func (z zone) periodAt(u int64) period {
	if z.fixed {
		return period{off: z.off, start: math.MinInt64, end: math.MaxInt64}
	}
	return z.boundsAt(u, true)
}

// rawPeriod returns the period time.Time.ZoneBounds reports for instant u.
func (z zone) rawPeriod(u int64) period { return z.boundsAt(u, false) }

// boundsAt returns the period time.Time.ZoneBounds reports for instant u,
// repaired when it does not hold u and repair is set (one function, so
// that periodAt costs one call on its common path).
func (z zone) boundsAt(u int64, repair bool) period {
	t := time.Unix(u, 0).In(z.loc)
	_, off := t.Zone()
	p := period{off: int64(off), start: math.MinInt64, end: math.MaxInt64}
	s, e := t.ZoneBounds()
	if !s.IsZero() {
		p.start = s.Unix()
	}
	if !e.IsZero() {
		p.end = e.Unix()
	}
	if repair && (u < p.start || u >= p.end) {
		return z.repairPeriod(u, p)
	}
	return p
}

// repairPeriod rebuilds the period holding u from p, the period
// ZoneBounds reported for u, which does not hold it (see periodAt). Its
// start still holds when the offset is the same at its reported end and at
// u; its end is that of the period reported for the next UTC day.
func (z zone) repairPeriod(u int64, p period) period {
	off := z.offsetAt(u)
	start := u
	if p.off == off && p.start <= u && z.offsetAt(p.end) == off {
		start = p.start
	}
	end := u + 1
	if next := z.rawPeriod(floorDiv(u, secondsPerDay)*secondsPerDay + secondsPerDay); next.start > u {
		end = next.start
		if next.off == off {
			end = next.end
		}
	}
	return period{off: off, start: start, end: end}
}

// offsetAt returns the zone's offset at instant u.
func (z zone) offsetAt(u int64) int64 {
	if z.fixed {
		return z.off
	}
	_, off := time.Unix(u, 0).In(z.loc).Zone()
	return int64(off)
}

// wall returns the wall seconds of instant u.
func (z zone) wall(u int64) int64 { return u + z.offsetAt(u) }

// maxOffsetSpan bounds |offset| (real offsets stay within ±15 h).
const maxOffsetSpan = 15 * 3600

// resolution says how a wall time became an instant.
type resolution struct {
	shift     int64 // > 0: the wall time fell in a gap and moved forward by shift seconds
	ambiguous bool  // the wall time happens twice; the first instant was taken
}

// resolve returns the instant of wall time w: the unique instant showing w;
// the first of two in a fall-back overlap; or, in a spring-forward gap, the
// instant w would have had with the offset before the gap (that is, w moved
// forward by the gap).
func (z zone) resolve(w int64) (int64, resolution) {
	if z.fixed {
		return w - z.off, resolution{}
	}
	p := z.periodAt(w - z.offsetAt(w))
	u := w - p.off
	if u >= p.start && u < p.end && u-p.start > 2*maxOffsetSpan && p.end-u > 2*maxOffsetSpan {
		return u, resolution{} // far from any transition: the common case
	}
	// Near a transition: look at the offsets just around the wall time.
	before := z.periodAt(w - 2*maxOffsetSpan)
	after := z.periodAt(w + 2*maxOffsetSpan)
	if before.off == after.off && before.end >= after.start {
		return w - before.off, resolution{}
	}
	var cands [4]int64
	n := 0
	for _, q := range []period{before, z.periodAt(w - before.off), z.periodAt(w - after.off), after} {
		c := w - q.off
		if c >= q.start && c < q.end {
			cands[n] = c
			n++
		}
	}
	if n > 0 {
		best := cands[0]
		distinct := false
		for _, c := range cands[1:n] {
			if c != best {
				distinct = true
			}
			if c < best {
				best = c
			}
		}
		return best, resolution{ambiguous: distinct}
	}
	// A gap: use the offset in force just before the transition that skipped w.
	tr := z.periodAt(w - before.off).start // the transition after which w - before.off falls
	prevOff := z.offsetAt(tr - 1)
	u = w - prevOff
	return u, resolution{shift: z.offsetAt(u) - prevOff}
}

// gapEnd returns the first wall time after the spring-forward gap that a
// wall time resolved to instant u (with a shift) fell in: the transition
// that opened the gap is the start of u's period.
func (z zone) gapEnd(u int64) int64 {
	p := z.periodAt(u)
	return p.start + p.off
}

// searchStart returns the smallest wall time whose instant can be ≥ t0: the
// wall time of t0, except just after a transition, where gap wall times map
// to instants after t0 (spring forward) or overlap wall times map before it
// (fall back).
func (z zone) searchStart(t0 int64) int64 {
	if z.fixed {
		return t0 + z.off
	}
	p := z.periodAt(t0)
	if p.start == math.MinInt64 || t0-p.start >= 2*maxOffsetSpan {
		return t0 + p.off
	}
	prev := z.offsetAt(p.start - 1)
	switch {
	case prev < p.off: // spring forward: gap wall times run at [start, start+gap)
		return t0 + prev
	case prev > p.off && t0-p.start < prev-p.off: // second pass of a fall-back overlap
		return p.start + prev
	}
	return t0 + p.off
}
