package recurrence

import (
	"slices"
	"time"

	"sked/models/jobdef"
)

// This file holds refOccurrences, a deliberately simple model of SPEC §2
// that the fast core is compared with (TestDifferential). It shares nothing
// with the core: it enumerates the candidate local times of every period with
// plain loops over time.Date values, maps each to an instant with refInstant
// (probing the zone's offsets with time.Time.In, never ZoneBounds), then
// sorts, de-duplicates and filters by the start-time table. It is slow and
// meant to be obviously right.

// refInstant maps the wall-clock time w (its fields read as a local time in
// loc) to an instant by the SPEC §2 rule: a time that exists is itself; one
// that exists twice is the first of its instants; one that does not exist
// (a spring-forward gap) is the same wall time read with the offset in force
// before the gap, that is, moved forward by the gap.
func refInstant(w time.Time, loc *time.Location) int64 {
	wu := w.Unix()
	offsets := map[int]bool{}
	for j := int64(-52); j <= 52; j++ { // every offset within ±26 h of the wall time
		_, o := time.Unix(wu+j*1800, 0).In(loc).Zone()
		offsets[o] = true
	}
	best, found := int64(0), false
	for o := range offsets {
		u := wu - int64(o)
		if _, o2 := time.Unix(u, 0).In(loc).Zone(); o2 == o && (!found || u < best) {
			best, found = u, true
		}
	}
	if found {
		return best
	}
	// A gap: the offset before it is the one whose reading lands after the
	// change, where the zone is further east than that offset.
	for o := range offsets {
		u := wu - int64(o)
		if _, o2 := time.Unix(u, 0).In(loc).Zone(); o2 > o && (!found || u < best) {
			best, found = u, true
		}
	}
	return best
}

// refWall returns the wall-clock fields of instant u in loc as a UTC time.
func refWall(u int64, loc *time.Location) time.Time {
	t := time.Unix(u, 0).In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// refDays returns the number of days from 1970-01-01 to the date of w.
func refDays(w time.Time) int {
	return int(time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// refMonday returns the day number of the Monday of w's week.
func refMonday(w time.Time) int { return refDays(w) - (int(w.Weekday())+6)%7 }

// refOccurrences returns the executions of job created at created, up to n
// of them and none after horizon, by the definition of SPEC §2.
func refOccurrences(job *jobdef.Job, created time.Time, n int, horizon time.Time) []time.Time {
	loc := job.Location()
	now := created.Unix()
	// The anchor (DTSTART) as an instant and as wall-clock fields.
	anchor, aw := now, refWall(now, loc)
	if st := job.StartTime; st != nil {
		if st.HasOffset {
			anchor = st.Time.Unix()
			aw = refWall(anchor, loc)
		} else {
			t := st.Time
			aw = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
			anchor = refInstant(aw, loc)
		}
	}
	out := func(us []int64) []time.Time {
		var ts []time.Time
		for _, u := range us {
			ts = append(ts, time.Unix(u, 0).In(loc))
		}
		return ts
	}
	rec := job.Recurrence
	if rec == nil {
		if job.StartTime != nil && anchor >= now {
			return out([]int64{anchor})
		}
		return out([]int64{now})
	}
	lower := max(now, anchor)
	upper := horizon.Unix()
	if rec.EndTime != nil {
		end := rec.EndTime.Time.Unix()
		if !rec.EndTime.HasOffset {
			t := rec.EndTime.Time
			end = refInstant(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC), loc)
		}
		upper = min(upper, end)
	}
	limit := n
	if rec.Count > 0 {
		limit = min(limit, rec.Count)
	}
	sch := rec.Schedule
	if sch.IsEmpty() {
		sch = &jobdef.Schedule{}
	}
	simple := rec.Schedule.IsEmpty()
	interval := rec.Interval
	var found []int64
	if simple && (rec.Frequency == jobdef.Second || rec.Frequency == jobdef.Minute || rec.Frequency == jobdef.Hour) {
		step := int64(interval)
		switch rec.Frequency {
		case jobdef.Minute:
			step *= 60
		case jobdef.Hour:
			step *= 3600
		}
		for u := anchor; u <= upper && len(found) < limit; u += step {
			if u >= lower {
				found = append(found, u)
			}
		}
		return out(found)
	}
	if !simple && job.StartTime == nil && now <= upper {
		found = append(found, now) // run now, then the schedule
	}
	sec := 0
	if simple {
		sec = aw.Second()
	}
	hours := sch.Hours
	minutes := sch.Minutes
	switch rec.Frequency {
	case jobdef.Second, jobdef.Minute:
		if hours == nil {
			hours = refRange(0, 23)
		}
		if minutes == nil {
			minutes = refRange(0, 59)
		}
	case jobdef.Hour:
		if hours == nil {
			hours = refRange(0, 23)
		}
		if minutes == nil {
			minutes = []int{aw.Minute()}
		}
	default:
		if hours == nil {
			hours = []int{aw.Hour()}
		}
		if minutes == nil {
			minutes = []int{aw.Minute()}
		}
	}
	slices.Sort(hours)
	slices.Sort(minutes)
	// dayOK says whether day d of its month matches the day elements.
	dayOK := func(d time.Time) bool {
		if rec.Frequency == jobdef.Second { // every element given limits; none defaults
			if sch.WeekDays != nil && !slices.Contains(sch.WeekDays, d.Weekday()) {
				return false
			}
			if sch.Months != nil && !slices.Contains(sch.Months, int(d.Month())) {
				return false
			}
			if sch.MonthDays == nil && sch.MonthlyOccurrences == nil {
				return true
			}
		}
		switch rec.Frequency {
		case jobdef.Minute, jobdef.Hour, jobdef.Day:
			return true
		case jobdef.Week:
			if sch.WeekDays == nil {
				return d.Weekday() == aw.Weekday()
			}
			return slices.Contains(sch.WeekDays, d.Weekday())
		}
		if rec.Frequency == jobdef.Year {
			months := sch.Months
			if months == nil {
				months = []int{int(aw.Month())}
			}
			if !slices.Contains(months, int(d.Month())) {
				return false
			}
		}
		dim := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
		if sch.MonthDays == nil && sch.MonthlyOccurrences == nil {
			want := aw.Day()
			if simple && want > dim {
				want = dim
			}
			return d.Day() == want
		}
		ok := true
		if sch.MonthDays != nil {
			ok = slices.Contains(sch.MonthDays, d.Day()) || slices.Contains(sch.MonthDays, d.Day()-dim-1)
		}
		if sch.MonthlyOccurrences != nil {
			nth, fromEnd := (d.Day()-1)/7+1, -((dim-d.Day())/7 + 1)
			any := false
			for _, o := range sch.MonthlyOccurrences {
				any = any || (o.Day == d.Weekday() && (o.Occurrence == 0 || o.Occurrence == nth || o.Occurrence == fromEnd))
			}
			ok = ok && any
		}
		return ok
	}
	// add maps one candidate wall time to its instant and keeps it when it
	// lies within [lower, upper]. The anchor's own wall time is DTSTART, an
	// instant of its own (it may be the second pass of a repeated hour).
	add := func(w time.Time) {
		u := anchor
		if !w.Equal(aw) {
			u = refInstant(w, loc)
		}
		if u >= lower && u <= upper {
			found = append(found, u)
		}
	}
	// dayTimes adds the candidate times of one matching day.
	dayTimes := func(d time.Time) {
		for _, h := range hours {
			for _, m := range minutes {
				add(time.Date(d.Year(), d.Month(), d.Day(), h, m, sec, 0, time.UTC))
			}
		}
	}
	aligned := func(k int) bool { return ((k%interval)+interval)%interval == 0 }
	// Periods run from the one holding the wall time 2 days before lower
	// until their start passes upper's wall time by 2 days, or until enough
	// instants are known that no later period can come before them.
	from := refWall(lower, loc).Add(-48 * time.Hour)
	stop := refWall(min(upper, lower+400*86400*12), loc).Add(48 * time.Hour)
	enough := func(next time.Time) bool {
		if len(found) < limit {
			return false
		}
		s := slices.Clone(found)
		slices.Sort(s)
		s = slices.Compact(s)
		return len(s) >= limit && next.Unix()-48*3600 > s[limit-1]
	}
	switch rec.Frequency {
	case jobdef.Second:
		for p := from.Truncate(time.Hour); !p.After(stop) && !enough(p); p = p.Add(time.Hour) {
			if !slices.Contains(hours, p.Hour()) || !dayOK(p) {
				continue
			}
			base := int(p.Sub(aw) / time.Second) // the hour's start, in seconds from the anchor
			for _, m := range minutes {
				for sec := 0; sec < 60; sec++ {
					if aligned(base + m*60 + sec) {
						add(time.Date(p.Year(), p.Month(), p.Day(), p.Hour(), m, sec, 0, time.UTC))
					}
				}
			}
		}
	case jobdef.Minute:
		a := aw.Truncate(time.Minute)
		for p := from.Truncate(time.Minute); !p.After(stop) && !enough(p); p = p.Add(time.Minute) {
			if aligned(int(p.Sub(a)/time.Minute)) && slices.Contains(hours, p.Hour()) && slices.Contains(minutes, p.Minute()) {
				add(p)
			}
		}
	case jobdef.Hour:
		a := aw.Truncate(time.Hour)
		for p := from.Truncate(time.Hour); !p.After(stop) && !enough(p); p = p.Add(time.Hour) {
			if aligned(int(p.Sub(a)/time.Hour)) && slices.Contains(hours, p.Hour()) {
				for _, m := range minutes {
					add(time.Date(p.Year(), p.Month(), p.Day(), p.Hour(), m, 0, 0, time.UTC))
				}
			}
		}
	case jobdef.Day:
		for d := refMidnight(from); !d.After(stop) && !enough(d); d = d.AddDate(0, 0, 1) {
			if aligned(refDays(d) - refDays(aw)) {
				dayTimes(d)
			}
		}
	case jobdef.Week:
		for d := refMidnight(from).AddDate(0, 0, -(int(from.Weekday())+6)%7); !d.After(stop) && !enough(d); d = d.AddDate(0, 0, 7) {
			if aligned((refMonday(d) - refMonday(aw)) / 7) {
				for i := 0; i < 7; i++ {
					if day := d.AddDate(0, 0, i); dayOK(day) {
						dayTimes(day)
					}
				}
			}
		}
	case jobdef.Month:
		for d := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); !d.After(stop) && !enough(d); d = d.AddDate(0, 1, 0) {
			if aligned((d.Year()*12 + int(d.Month())) - (aw.Year()*12 + int(aw.Month()))) {
				for day := d; day.Month() == d.Month(); day = day.AddDate(0, 0, 1) {
					if dayOK(day) {
						dayTimes(day)
					}
				}
			}
		}
	case jobdef.Year:
		for d := time.Date(from.Year(), 1, 1, 0, 0, 0, 0, time.UTC); !d.After(stop) && !enough(d); d = d.AddDate(1, 0, 0) {
			if aligned(d.Year() - aw.Year()) {
				for day := d; day.Year() == d.Year(); day = day.AddDate(0, 0, 1) {
					if dayOK(day) {
						dayTimes(day)
					}
				}
			}
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	if len(found) > limit {
		found = found[:limit]
	}
	return out(found)
}

// refMidnight returns 00:00 of w's date.
func refMidnight(w time.Time) time.Time {
	return time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, time.UTC)
}

// refRange returns lo, lo+1 … hi.
func refRange(lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}
