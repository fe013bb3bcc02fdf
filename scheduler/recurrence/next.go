package recurrence

import (
	"math/bits"
	"time"

	"sked/models/jobdef"
)

// occurrence is one execution instant with how its wall time was resolved.
type occurrence struct {
	at   int64 // Unix seconds
	wall int64 // the rule's wall time (equal to the instant's wall time unless shifted)
	res  resolution
}

// execution is an occurrence as the job runs it, after its calendars: it
// may have been moved from a regular occurrence (kept apart from
// occurrence, which the common path without calendars copies around).
type execution struct {
	occurrence
	movedFrom int64 // when not 0: the regular occurrence a calendar moved here
}

// Next returns the first execution strictly after after, and false when
// there is none (the job has ended, or its schedule never occurs again).
//
// The executions are those of SPEC §2 for a job created at the moment given
// to Compile: the start-time table (a one-time job runs once, at startTime or
// at creation; a job without startTime and with a schedule runs at creation
// and then on its schedule), then the rule's occurrences from the creation on,
// none after endTime. Next does not apply count (see Count). The result is in
// the job's zone. The cost does not depend on how far the anchor lies in the
// past, and a schedule that never occurs is reported after at most one
// 400-year calendar cycle of arithmetic.
func (r *Rule) Next(after time.Time) (time.Time, bool) {
	var o occurrence
	var ok bool
	if len(r.cals) == 0 {
		o, ok = r.regular(after.Unix() + 1) // the common case, one call less
	} else {
		var e execution
		e, ok = r.first(after.Unix() + 1)
		o = e.occurrence
	}
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(o.at, 0).In(r.zone.loc), true
}

// regular returns the first execution at or after t0 (Unix seconds) of
// the rule without its calendars: what first returns for a rule that
// excludes none.
func (r *Rule) regular(t0 int64) (occurrence, bool) {
	if r.triggered {
		return occurrence{}, false
	}
	if r.once {
		if r.onceAt >= t0 {
			return occurrence{at: r.onceAt, wall: r.zone.wall(r.onceAt)}, true
		}
		return occurrence{}, false
	}
	if t0 <= r.created {
		if r.runNow {
			if r.hasUntil && r.created > r.until {
				return occurrence{}, false
			}
			return occurrence{at: r.created, wall: r.zone.wall(r.created)}, true
		}
		t0 = r.created
	}
	if t0 < r.anchor {
		t0 = r.anchor
	}
	o, ok := r.ruleFirst(t0)
	if t0 == r.anchor && (!ok || o.at > r.anchor) {
		// DTSTART is an instant of its own: when its wall time is one of
		// the rule's, it runs at that instant, even in the second pass of a
		// repeated hour, where the wall time would otherwise mean the first.
		if a, isAnchor := r.anchorOccurrence(); isAnchor {
			o, ok = a, true
		}
	}
	if !ok || (r.hasUntil && o.at > r.until) {
		return occurrence{}, false
	}
	return o, true
}

// anchorOccurrence returns the anchor as an occurrence, and whether the
// anchor's wall time is one of the rule's wall times.
func (r *Rule) anchorOccurrence() (occurrence, bool) {
	if r.elapsed {
		return occurrence{at: r.anchor, wall: r.zone.wall(r.anchor)}, true
	}
	if w, ok := r.nextWall(r.anchorWall); !ok || w != r.anchorWall {
		return occurrence{}, false
	}
	return occurrence{at: r.anchor, wall: r.anchorWall}, true
}

// maxInstant is the last instant ever scheduled (the end of year 9999 UTC
// plus the largest offset).
var maxInstant = maxWall + maxOffsetSpan

// ruleFirst returns the rule's first occurrence at or after t0 ≥ anchor.
func (r *Rule) ruleFirst(t0 int64) (occurrence, bool) {
	if t0 > maxInstant {
		return occurrence{}, false
	}
	if r.elapsed {
		k := (t0 - r.anchor + r.step - 1) / r.step
		u := r.anchor + k*r.step
		if u > maxInstant {
			return occurrence{}, false
		}
		return occurrence{at: u, wall: r.zone.wall(u)}, true
	}
	L := r.zone.searchStart(t0)
	for i := 0; i < 16; i++ {
		c, ok := r.nextWall(L)
		if !ok {
			return occurrence{}, false
		}
		u, res := r.zone.resolve(c)
		if u < t0 {
			// Only near a transition: skip wall times already past.
			if w := r.zone.wall(t0); c < w {
				L = w
			} else {
				L = c + 1
			}
			continue
		}
		if res.shift > 0 {
			// A wall time moved forward by a gap may land after wall times
			// that follow the gap: the first of those whose instant is ≥ t0
			// comes first if its wall time is below c + shift (after the gap
			// wall times and instants keep their order, so one look is enough).
			if c2, ok := r.nextWall(max(r.zone.gapEnd(u), t0+r.zone.offsetAt(u))); ok && c2 < c+res.shift {
				if u2, res2 := r.zone.resolve(c2); u2 >= t0 && u2 < u {
					return occurrence{at: u2, wall: c2, res: res2}, true
				}
			}
		}
		return occurrence{at: u, wall: c, res: res}, true
	}
	return occurrence{}, false
}

// nextWall returns the rule's first wall time at or after L, in any period
// aligned with the anchor's (index k·interval, k of any sign), and false
// when there is none up to year 9999. Periods before the anchor's are not
// cut off here: the start-time table compares instants (ruleFirst's t0 is
// never before the anchor), and a wall time of the period just before the
// anchor's can move past the anchor across a daylight-saving gap.
func (r *Rule) nextWall(L int64) (int64, bool) {
	if L < minWall {
		L = minWall
	}
	if L > maxWall || r.never {
		return 0, false
	}
	var w int64
	var ok bool
	switch r.freq {
	case jobdef.Second:
		w, ok = r.nextSecondly(L)
	case jobdef.Minute:
		w, ok = r.nextMinutely(L)
	case jobdef.Hour:
		w, ok = r.nextHourly(L)
	case jobdef.Day:
		w, ok = r.nextDaily(L)
	case jobdef.Week:
		w, ok = r.nextWeekly(L)
	case jobdef.Month:
		w, ok = r.nextMonthly(L)
	case jobdef.Year:
		w, ok = r.nextYearly(L)
	}
	if !ok || w > maxWall {
		return 0, false
	}
	return w, true
}

// nextBit returns the lowest set bit of mask at position ≥ from, or -1.
func nextBit(mask uint64, from int64) int64 {
	if from >= 64 {
		return -1
	}
	if from < 0 {
		from = 0
	}
	m := mask >> uint(from) << uint(from)
	if m == 0 {
		return -1
	}
	return int64(bits.TrailingZeros64(m))
}

// nextTOD returns the first time of day (seconds) at or after sod.
func (r *Rule) nextTOD(sod int64) (int64, bool) {
	h, m, s := sod/3600, sod/60%60, sod%60
	if s > r.sec {
		m++
	}
	if m == 60 {
		m, h = 0, h+1
	}
	for h < 24 && h >= 0 {
		if r.hourMask&(1<<h) != 0 {
			if mm := nextBit(r.minMask, m); mm >= 0 {
				return h*3600 + mm*60 + r.sec, true
			}
		}
		h, m = nextBit(uint64(r.hourMask), h+1), 0
	}
	return 0, false
}

// splitDay splits wall seconds into a day number and seconds of the day.
func splitDay(L int64) (int64, int64) {
	d := floorDiv(L, secondsPerDay)
	return d, L - d*secondsPerDay
}

// nextDaily handles frequency "day": every interval-th day from the anchor's.
func (r *Rule) nextDaily(L int64) (int64, bool) {
	d, sod := splitDay(L)
	if m := floorMod(d-r.aDay, r.interval); m != 0 {
		d, sod = d+r.interval-m, 0
	}
	if t, ok := r.nextTOD(sod); ok {
		return d*secondsPerDay + t, true
	}
	return (d+r.interval)*secondsPerDay + r.firstTOD, true
}

// nextWeekly handles frequency "week": Monday-first weeks, every
// interval-th week from the anchor's, on the week's selected days.
func (r *Rule) nextWeekly(L int64) (int64, bool) {
	d, sod := splitDay(L)
	ws := d - mondayIndex(d)
	if m := floorMod((ws-r.aWeekStart)/7, r.interval); m != 0 {
		ws += (r.interval - m) * 7
		d, sod = ws, 0
	}
	i := d - ws
	if r.weekMask&(1<<i) != 0 {
		if t, ok := r.nextTOD(sod); ok {
			return d*secondsPerDay + t, true
		}
	}
	if j := nextBit(uint64(r.weekMask), i+1); j >= 0 {
		return (ws+j)*secondsPerDay + r.firstTOD, true
	}
	ws += r.interval * 7
	return (ws+nextBit(uint64(r.weekMask), 0))*secondsPerDay + r.firstTOD, true
}

// inMonth returns the first wall time at or after day dd, second sod of the
// month with index mi (year·12 + month − 1), or false when none is left in
// that month.
func (r *Rule) inMonth(mi, dd, sod int64) (int64, bool) {
	y, m := floorDiv(mi, 12), floorMod(mi, 12)+1
	first := daysFromCivil(y, m, 1)
	mask := uint64(r.dayTable[daysInMonth(y, m)-28][weekday(first)])
	if mask == 0 {
		return 0, false
	}
	if mask&(1<<dd) != 0 {
		if t, ok := r.nextTOD(sod); ok {
			return (first+dd-1)*secondsPerDay + t, true
		}
	}
	if nd := nextBit(mask, dd+1); nd >= 0 {
		return (first+nd-1)*secondsPerDay + r.firstTOD, true
	}
	return 0, false
}

// maxMonthIdx is the month index of December 9999.
const maxMonthIdx = 9999*12 + 11

// nextMonthly handles frequency "month": every interval-th month from the
// anchor's. The calendar repeats every 4,800 months, so after that many
// aligned months without a matching day there is none.
func (r *Rule) nextMonthly(L int64) (int64, bool) {
	d, sod := splitDay(L)
	y, m, dd := civilFromDays(d)
	mi := y*12 + m - 1
	if rem := floorMod(mi-r.aMonthIdx, r.interval); rem != 0 {
		mi, dd, sod = mi+r.interval-rem, 1, 0
	}
	limit := 4800/gcd(r.interval, 4800) + 1
	for n := int64(0); n <= limit && mi <= maxMonthIdx; n++ {
		if w, ok := r.inMonth(mi, dd, sod); ok {
			return w, true
		}
		mi, dd, sod = mi+r.interval, 1, 0
	}
	return 0, false
}

// nextYearly handles frequency "year": every interval-th year from the
// anchor's, in the selected months (default: the anchor's month).
func (r *Rule) nextYearly(L int64) (int64, bool) {
	d, sod := splitDay(L)
	y, m, dd := civilFromDays(d)
	if rem := floorMod(y-r.aYear, r.interval); rem != 0 {
		y, m, dd, sod = y+r.interval-rem, 1, 1, 0
	}
	limit := 400/gcd(r.interval, 400) + 1
	for n := int64(0); n <= limit && y <= 9999; n++ {
		for ; m <= 12; m++ {
			if r.monthsMask&(1<<m) != 0 {
				if w, ok := r.inMonth(y*12+m-1, dd, sod); ok {
					return w, true
				}
			}
			dd, sod = 1, 0
		}
		y, m, dd, sod = y+r.interval, 1, 1, 0
	}
	return 0, false
}

// nextHourly handles frequency "hour" with a schedule: every interval-th
// wall-clock hour from the anchor's whose hour is selected, at the selected
// minutes.
func (r *Rule) nextHourly(L int64) (int64, bool) {
	H := floorDiv(L, 3600)
	rem := L - H*3600
	if m := floorMod(H-r.aHourIdx, r.interval); m != 0 {
		H, rem = H+r.interval-m, 0
	}
	if r.hourMask&(1<<floorMod(H, 24)) != 0 {
		mm := rem / 60
		if rem%60 > r.sec {
			mm++
		}
		if b := nextBit(r.minMask, mm); b >= 0 {
			return H*3600 + b*60 + r.sec, true
		}
	}
	H, ok := r.nextCongruent(H+r.interval, 24, func(x int64) bool { return r.hourMask&(1<<x) != 0 })
	if !ok {
		return 0, false
	}
	return H*3600 + nextBit(r.minMask, 0)*60 + r.sec, true
}

// nextMinutely handles frequency "minute" with a schedule: every
// interval-th wall-clock minute from the anchor's whose hour and minute are
// selected.
func (r *Rule) nextMinutely(L int64) (int64, bool) {
	M := floorDiv(L, 60)
	if L-M*60 > r.sec {
		M++
	}
	if m := floorMod(M-r.aMinuteIdx, r.interval); m != 0 {
		M += r.interval - m
	}
	M, ok := r.nextCongruent(M, 1440, func(x int64) bool {
		return r.hourMask&(1<<(x/60)) != 0 && r.minMask&(1<<(x%60)) != 0
	})
	if !ok {
		return 0, false
	}
	return M*60 + r.sec, true
}

// nextCongruent returns the smallest x ≥ x0 with x ≡ x0 (mod interval) whose
// residue mod p is selected (member), trying a few steps first and then
// solving the congruences directly for every selected residue (r.targets),
// so sparse and impossible combinations cost O(p) at most.
func (r *Rule) nextCongruent(x0, p int64, member func(int64) bool) (int64, bool) {
	x := x0
	for i := 0; i < 48; i++ {
		if member(floorMod(x, p)) {
			return x, true
		}
		x += r.interval
	}
	g := gcd(r.interval, p)
	pg := p / g
	inv := modInverse(r.interval/g, pg)
	best, found := int64(0), false
	for _, t := range r.targets {
		diff := t - floorMod(x0, p)
		if floorMod(diff, g) != 0 {
			continue
		}
		k := floorMod(floorMod(diff/g, pg)*inv, pg)
		if c := x0 + k*r.interval; !found || c < best {
			best, found = c, true
		}
	}
	return best, found
}

// nextSecondly handles frequency "second" with a schedule: every
// interval-th wall-clock second from the anchor's whose hour and minute
// are selected, on the selected days (weekDays, monthDays,
// monthlyOccurrences, months). The first congruent second at a selected
// time of day is found for all days at once (secondOfDay); when its day is
// not selected the search goes on from the next selected day (nextDay).
func (r *Rule) nextSecondly(L int64) (int64, bool) {
	S := L
	for S <= maxWall {
		if m := floorMod(S-r.anchorWall, r.interval); m != 0 {
			S += r.interval - m
		}
		var ok bool
		if S, ok = r.secondOfDay(S); !ok {
			return 0, false
		}
		if !r.secDays {
			return S, true
		}
		d := floorDiv(S, secondsPerDay)
		nd, ok := r.nextDay(d)
		if !ok {
			return 0, false
		}
		if nd == d {
			return S, true
		}
		S = nd * secondsPerDay
	}
	return 0, false
}

// secondOfDay returns the smallest x ≥ x0 with x ≡ x0 (mod interval)
// whose hour and minute are selected: a few steps first, then, for every
// selected minute of the day, the first congruent second within it
// (solving the congruence directly), so the cost never depends on how far
// the next one lies.
func (r *Rule) secondOfDay(x0 int64) (int64, bool) {
	const allMin, allHour = uint64(1)<<60 - 1, uint32(1)<<24 - 1
	if r.minMask == allMin && r.hourMask == allHour {
		return x0, true
	}
	member := func(x int64) bool {
		sod := floorMod(x, secondsPerDay)
		return r.hourMask&(1<<(sod/3600)) != 0 && r.minMask&(1<<(sod/60%60)) != 0
	}
	x := x0
	for i := 0; i < 64; i++ {
		if member(x) {
			return x, true
		}
		x += r.interval
	}
	const p = secondsPerDay
	g := gcd(r.interval, p)
	pg := p / g
	inv := modInverse(r.interval/g, pg)
	r0 := floorMod(x0, p)
	best, found := int64(0), false
	for h := int64(0); h < 24; h++ {
		if r.hourMask&(1<<h) == 0 {
			continue
		}
		for mi := int64(0); mi < 60; mi++ {
			if r.minMask&(1<<mi) == 0 {
				continue
			}
			b := h*3600 + mi*60
			// The residues x0 + k·interval reaches are ≡ r0 (mod g).
			for t := b + floorMod(r0-b, g); t < b+60; t += g {
				k := floorMod(floorMod((t-r0)/g, pg)*inv, pg)
				if c := x0 + k*r.interval; !found || c < best {
					best, found = c, true
				}
			}
		}
	}
	return best, found
}

// nextDay returns the first day ≥ d (days since the epoch of wall time)
// that a second rule's days allow (dayTable, monthsMask), and false when
// there is none up to year 9999. The calendar repeats every 4,800 months.
func (r *Rule) nextDay(d int64) (int64, bool) {
	y, m, dd := civilFromDays(d)
	mi := y*12 + m - 1
	for n := 0; n <= 4801 && mi <= maxMonthIdx; n++ {
		y, m := floorDiv(mi, 12), floorMod(mi, 12)+1
		if r.monthsMask&(1<<m) != 0 {
			first := daysFromCivil(y, m, 1)
			mask := uint64(r.dayTable[daysInMonth(y, m)-28][weekday(first)])
			if nd := nextBit(mask, dd); nd >= 0 {
				return first + nd - 1, true
			}
		}
		mi, dd = mi+1, 1
	}
	return 0, false
}
