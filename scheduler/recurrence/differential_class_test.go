package recurrence

import (
	"slices"
	"time"

	"sked/models/jobdef"
)

// The five classes of daylight-saving defects TestDifferential found, which
// classifyDisagreement sorts a disagreement of TestDifferential into, so
// that its report says which rule of SPEC §2 a failure breaks.
const (
	classGapOrder     = "1: an existing time before shifted ones lost on a spring-forward day"
	classLeapYearEnd  = "2: 31 December of a leap year from 2040 (ZoneBounds)"
	classCreatedTwice = "3: no startTime, created in the repeated hour: the run at creation lost"
	classStartTwice   = "4: startTime in the repeated hour's second pass: the run at startTime lost"
	classShiftedStart = "5: a gap time shifted to or past the anchor (startTime, or the creation) lost"
	classOther        = "other"
)

// diffClasses lists the classes in report order.
var diffClasses = []string{classGapOrder, classLeapYearEnd, classCreatedTwice, classStartTwice, classShiftedStart, classOther}

// classifyDisagreement names the class of the first difference between the
// core's executions (got) and the reference's (want) for job created at
// now. It looks only at the reference's answer and the zone's offsets
// (probed with time.Time.In), never at the core.
func classifyDisagreement(job *jobdef.Job, now time.Time, got, want []time.Time) string {
	loc := job.Location()
	i := 0
	for i < len(got) && i < len(want) && got[i].Equal(want[i]) {
		i++
	}
	var g, w time.Time // the first differing executions; zero when absent
	if i < len(got) {
		g = got[i]
	}
	if i < len(want) {
		w = want[i]
	}
	anchor, anchorWall := refAnchor(job, now)
	for _, t := range []time.Time{g, w, now, time.Unix(anchor, 0)} {
		if !t.IsZero() && refLeapYearEnd(t, loc) {
			return classLeapYearEnd
		}
	}
	if w.IsZero() || slices.ContainsFunc(got, w.Equal) {
		return classOther // the core runs something the reference does not
	}
	wu := w.Unix()
	switch {
	case job.StartTime == nil && wu == now.Unix() && refRepeated(wu, loc):
		return classCreatedTwice
	case job.StartTime != nil && wu == anchor && refRepeated(wu, loc):
		return classStartTwice
	}
	gap := refAfterGap(wu, loc)
	switch {
	case gap == 0:
		return classOther
	case refWall(wu, loc).Add(-time.Duration(gap) * time.Second).Before(anchorWall):
		// w may be a time of the wall clock before the anchor's (startTime,
		// or the creation), moved past the anchor's instant by the gap.
		return classShiftedStart
	case !g.IsZero() && g.After(w) && refAfterGap(g.Unix(), loc) > 0:
		// Both lie in the stretch after the change where shifted and
		// existing times mix: the core ran a later one first.
		return classGapOrder
	}
	return classOther
}

// refLeapYearEnd reports whether t falls on 31 December (UTC or local) of
// a leap year from 2040 on.
func refLeapYearEnd(t time.Time, loc *time.Location) bool {
	for _, v := range []time.Time{t.UTC(), t.In(loc)} {
		y := v.Year()
		if y >= 2040 && y%4 == 0 && (y%100 != 0 || y%400 == 0) && v.Month() == time.December && v.Day() == 31 {
			return true
		}
	}
	return false
}

// refAnchor returns the reference's anchor (DTSTART) as an instant and as
// wall-clock fields.
func refAnchor(job *jobdef.Job, now time.Time) (int64, time.Time) {
	loc := job.Location()
	st := job.StartTime
	switch {
	case st == nil:
		return now.Unix(), refWall(now.Unix(), loc)
	case st.HasOffset:
		return st.Time.Unix(), refWall(st.Time.Unix(), loc)
	}
	t := st.Time
	aw := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	return refInstant(aw, loc), aw
}

// refRepeated reports whether instant u's wall time happens twice and u is
// its second pass.
func refRepeated(u int64, loc *time.Location) bool {
	return refInstant(refWall(u, loc), loc) < u
}

// refAfterGap returns the gap when instant u lies less than the gap after
// a spring-forward change, where wall times shifted across the gap and wall
// times that exist both run; else 0.
func refAfterGap(u int64, loc *time.Location) int64 {
	off := func(v int64) int64 { _, o := time.Unix(v, 0).In(loc).Zone(); return int64(o) }
	cur := off(u)
	for back := int64(1800); back <= 26*3600; back += 1800 {
		if off(u-back) == cur {
			continue
		}
		lo, hi := u-back, u-back+1800 // off(lo) != cur, off(hi) == cur
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if off(mid) == cur {
				hi = mid
			} else {
				lo = mid
			}
		}
		if gap := cur - off(lo); gap > 0 && u-hi < gap {
			return gap
		}
		return 0
	}
	return 0
}
