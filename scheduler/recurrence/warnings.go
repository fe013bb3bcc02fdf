package recurrence

import (
	"fmt"
	"time"

	"sked/models/jobdef"
)

// maxMonthsScanned bounds the months the skipped-month warning looks at.
const maxMonthsScanned = 1200

// warnings explains what a user would not guess about the first occurrences
// occ of the rule when n were asked for (SPEC §3): months skipped for lack of
// such a day, clamping to the month's last day, times moved or merged by
// daylight saving, no future occurrence, and the cut-off by count or endTime.
func (r *Rule) warnings(occ []execution, n int) []string {
	if r.triggered {
		return []string{}
	}
	w := []string{}
	job := r.job
	if job.State == jobdef.Disabled {
		w = append(w, "the job is disabled: these occurrences run only once it is enabled (re-enabling computes them from that moment)")
	}
	if r.once {
		if job.StartTime != nil && r.anchor < r.created {
			w = append(w, "startTime "+job.StartTime.Raw+" is in the past: the job runs once, immediately")
		}
		return w
	}
	if len(occ) == 0 {
		return append(w, r.noOccurrenceWarning())
	}
	if job.StartTime != nil && r.anchor < r.created && r.count > 0 {
		w = append(w, fmt.Sprintf("startTime %s is in the past: past occurrences do not run, and count %d counts executions from now on", job.StartTime.Raw, r.count))
	}
	w = append(w, r.monthWarnings(occ)...)
	w = append(w, r.dstWarnings(occ)...)
	w = append(w, r.calendarWarnings(occ)...)
	if len(occ) < n || (r.count > 0 && len(occ) == r.count) {
		last := r.fmtLocal(occ[len(occ)-1].at)
		switch {
		case r.count > 0 && len(occ) == r.count:
			w = append(w, fmt.Sprintf("count %d ends the job: the last occurrence is %s", r.count, last))
		case r.hasUntil:
			if _, ok := r.withoutUntil().first(occ[len(occ)-1].at + 1); ok {
				w = append(w, fmt.Sprintf("endTime %s ends the job: the last occurrence is %s", job.Recurrence.EndTime.Raw, last))
			} else {
				w = append(w, "the schedule has no occurrence after "+last)
			}
		default:
			w = append(w, "the schedule has no occurrence after "+last)
		}
	}
	return w
}

// withoutUntil returns a copy of the rule without endTime.
func (r *Rule) withoutUntil() *Rule {
	c := *r
	c.hasUntil = false
	return &c
}

// noOccurrenceWarning explains why a job never runs.
func (r *Rule) noOccurrenceWarning() string {
	if r.hasUntil {
		raw := r.job.Recurrence.EndTime.Raw
		if r.until < r.created {
			return "endTime " + raw + " is in the past: the job has no future occurrence and is created completed"
		}
		if _, ok := r.withoutUntil().first(r.created); ok {
			return "endTime " + raw + " comes before the first occurrence: the job has no future occurrence"
		}
	}
	if r.calendarsExcludeAll() {
		return "the calendars " + r.calendarNames() + " exclude every day on which the schedule occurs: the job has no future occurrence"
	}
	return "the schedule never occurs: no date in the calendar matches it, so the job has no future occurrence"
}

// monthWarnings reports months (from the creation or the start, whichever is
// later, to the last occurrence)
// that a month/year schedule skips because they have no such day, and the
// clamping of a simple monthly/yearly recurrence to shorter months.
func (r *Rule) monthWarnings(occ []execution) []string {
	if r.freq != jobdef.Month && r.freq != jobdef.Year {
		return nil
	}
	first, last := r.zone.wall(max(r.created, r.anchor)), occ[len(occ)-1].wall
	if r.simple {
		if r.aDayOfMonth <= 28 {
			return nil
		}
		for _, o := range occ {
			if _, _, d := civilFromDays(floorDiv(o.wall, secondsPerDay)); d != r.aDayOfMonth {
				return []string{fmt.Sprintf("day %d does not exist in every month: in shorter months the job runs on the last day (e.g. %s)",
					r.aDayOfMonth, r.fmtLocal(o.at)[:10])}
			}
		}
		return nil
	}
	var s jobdef.Schedule
	if r.job.Recurrence.Schedule != nil {
		s = *r.job.Recurrence.Schedule
	}
	if len(s.MonthDays) > 0 && len(s.MonthlyOccurrences) > 0 {
		return nil // an intersection skips months by design
	}
	y, m, _ := civilFromDays(floorDiv(first, secondsPerDay))
	ly, lm, _ := civilFromDays(floorDiv(last, secondsPerDay))
	var skipped []string
	count := 0
	for mi, n := y*12+m-1, 0; mi <= ly*12+lm-1 && n < maxMonthsScanned; mi, n = mi+1, n+1 {
		yy, mm := floorDiv(mi, 12), floorMod(mi, 12)+1
		if r.freq == jobdef.Month && floorMod(mi-r.aMonthIdx, r.interval) != 0 ||
			r.freq == jobdef.Year && (r.monthsMask&(1<<mm) == 0 || floorMod(yy-r.aYear, r.interval) != 0) {
			continue
		}
		if r.dayTable[daysInMonth(yy, mm)-28][weekday(daysFromCivil(yy, mm, 1))] == 0 {
			count++
			if len(skipped) < 3 {
				skipped = append(skipped, monthName(mm)+" "+fmt.Sprint(yy))
			}
		}
	}
	if count == 0 {
		return nil
	}
	if count > len(skipped) {
		skipped = append(skipped, fmt.Sprintf("%d more", count-len(skipped)))
	}
	what := "such a day"
	switch days, _ := r.describeMonthDays(); {
	case len(s.MonthlyOccurrences) > 0:
		what = days[len("the "):]
		if len(s.MonthlyOccurrences) > 1 {
			what = "any of " + days
		}
	case len(s.MonthDays) == 1:
		what = days[len("the "):]
	case len(s.MonthDays) == 0:
		what = days[len("the "):] + " (the day of the start time)"
	}
	return []string{fmt.Sprintf("no occurrence in %s: those months have no %s", joinAnd(skipped), what)}
}

// dstWarnings reports occurrences moved or merged by a spring-forward gap,
// wall times that happen twice in a fall-back overlap, and elapsed-time rules
// that cross a change of offset.
func (r *Rule) dstWarnings(occ []execution) []string {
	if r.zone.fixed {
		return nil
	}
	var w []string
	name := r.zone.loc.String()
	if r.elapsed {
		p := r.zone.periodAt(occ[0].at)
		if p.end <= occ[len(occ)-1].at {
			change := time.Unix(p.end, 0).In(r.zone.loc)
			w = append(w, fmt.Sprintf("%s counts elapsed time: after the daylight-saving change in %s at %s the runs fall at other wall-clock times",
				r.elapsedPhrase(), name, change.Format("2006-01-02 15:04 MST")))
		}
		return w
	}
	for _, o := range occ {
		switch {
		case o.res.shift > 0:
			at := time.Unix(o.at, 0).In(r.zone.loc)
			msg := fmt.Sprintf("%s %s does not exist in %s (the clocks jump forward): it runs at %s instead",
				r.wallDate(o.wall), r.wallClock(o.wall), name, at.Format("15:04 MST"))
			// The wall time the gap moved it to may be one of the rule's own.
			if twin := o.wall + o.res.shift; twin >= r.zone.gapEnd(o.at) {
				if c2, ok := r.nextWall(twin); ok && c2 == twin {
					msg += ", merged with the " + r.wallClock(c2) + " occurrence (it runs once)"
				}
			}
			w = append(w, msg)
		case o.res.ambiguous:
			at := time.Unix(o.at, 0).In(r.zone.loc)
			w = append(w, fmt.Sprintf("%s %s happens twice in %s (the clocks fall back): it runs once, at the first (%s)",
				r.wallDate(o.wall), r.wallClock(o.wall), name, at.Format("15:04 MST")))
		}
	}
	return w
}

// wallDate formats the date of wall seconds as 2006-01-02.
func (r *Rule) wallDate(w int64) string {
	y, m, d := civilFromDays(floorDiv(w, secondsPerDay))
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// wallClock formats the time of day of wall seconds.
func (r *Rule) wallClock(w int64) string {
	sod := floorMod(w, secondsPerDay)
	return clock(sod/3600, sod/60%60, sod%60)
}
