package forecast

import (
	"context"
	"time"

	"sked/models/caldef"
	"sked/scheduler/recurrence"
)

// Month counts the runs of the enabled jobs of workspaceID on each day of
// the month year-month on loc's wall clock, from now on.
func (f *Forecaster) Month(ctx context.Context, workspaceID string, year int, month time.Month, loc *time.Location, now time.Time) (*Month, error) {
	jobs, cals, more, problems, err := f.load(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	start := dayStart(year, month, 1, loc)
	end := dayStart(year, month+1, 1, loc)
	out := &Month{Year: year, Month: month, From: start, Jobs: len(jobs), MoreJobs: more, Problems: problems}
	if now.After(start) {
		out.From = now
	}
	n := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
	out.Days = make([]Day, n)
	for i := range out.Days {
		d := caldef.Date{Year: year, Month: month, Day: i + 1}
		out.Days[i] = Day{Date: d, Excluded: excludedOn(cals, d)}
	}
	if !out.From.Before(end) {
		return out, nil
	}
	capFrom := n + 1 // first day with an undercount
	for _, c := range jobs {
		capped, at := c.each(out.From, end, func(t time.Time) {
			out.Days[t.In(loc).Day()-1].Runs++
		})
		if capped {
			out.Capped = append(out.Capped, c.job.Path())
			capFrom = min(capFrom, at.In(loc).Day())
		}
	}
	for i := capFrom - 1; i >= 0 && i < n; i++ {
		out.Days[i].Capped = true
	}
	return out, nil
}

// DayRuns lists the runs of the enabled jobs of workspaceID on the day d
// of loc's wall clock, from now on: per hour, and one by one in time
// order (at most MaxDayRuns).
func (f *Forecaster) DayRuns(ctx context.Context, workspaceID string, d caldef.Date, loc *time.Location, now time.Time) (*Day, bool, error) {
	jobs, cals, more, _, err := f.load(ctx, workspaceID)
	if err != nil {
		return nil, false, err
	}
	start := dayStart(d.Year, d.Month, d.Day, loc)
	end := dayStart(d.Year, d.Month, d.Day+1, loc)
	from := start
	if now.After(from) {
		from = now
	}
	day := &Day{Date: d, Excluded: excludedOn(cals, d)}
	var runs []Run
	for _, c := range jobs {
		capped, _ := c.each(from, end, func(t time.Time) {
			day.Runs++
			day.Hours[t.In(loc).Hour()]++
			runs = append(runs, Run{At: t, Job: c.job})
			if len(runs) >= 2*MaxDayRuns {
				// Keep the earliest only: memory stays bounded.
				sortRuns(runs)
				runs = runs[:MaxDayRuns]
			}
		})
		day.Capped = day.Capped || capped
	}
	sortRuns(runs)
	if len(runs) > MaxDayRuns {
		runs = runs[:MaxDayRuns]
	}
	day.More = day.Runs - len(runs)
	day.List = runs
	return day, more, nil
}

// dayStart returns the first instant of the day year-month-day (normalised
// as time.Date does) on loc's wall clock: its 00:00 by the rule the jobs
// run by (recurrence.WallInstant), so that a midnight skipped by daylight
// saving (America/Santiago, 2024-09-08) starts the day when the clocks
// jump, where time.Date would give 23:00 of the day before.
func dayStart(year int, month time.Month, day int, loc *time.Location) time.Time {
	return recurrence.WallInstant(time.Date(year, month, day, 0, 0, 0, 0, time.UTC), loc)
}
