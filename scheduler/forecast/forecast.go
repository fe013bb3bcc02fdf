// Package forecast counts the coming runs of a workspace's jobs per day
// and hour (SPEC §13.6's month view), from the job rules as the engine
// runs them: compiled for the job's schedule base with the workspace's
// calendars, recurrence.count applied to what is left of it. It only
// reads.
package forecast

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// Limits of a forecast.
const (
	// MaxJobs bounds the jobs counted; a workspace with more says so.
	MaxJobs = 2000
	// PerJobCap bounds the runs counted per job per month (or day).
	PerJobCap = 10_000
	// MaxDayRuns bounds the runs a day lists one by one.
	MaxDayRuns = 500
)

// CalendarSource returns the compiled calendars of a workspace.
type CalendarSource func(ctx context.Context, workspaceID string) (recurrence.Calendars, error)

// Forecaster computes forecasts from the store. Safe for concurrent use.
type Forecaster struct {
	store     *models.Store
	calendars CalendarSource
}

// New returns a Forecaster reading jobs from store and calendars from
// calendars.
func New(store *models.Store, calendars CalendarSource) *Forecaster {
	return &Forecaster{store: store, calendars: calendars}
}

// Month is the runs of a month, per day of loc's wall clock.
type Month struct {
	Year  int
	Month time.Month
	// From is where counting starts: the month's start, or now when that
	// is later (runs before now are not forecast).
	From time.Time
	// Days are the month's days, the first at index 0.
	Days []Day
	// Jobs is how many jobs were counted; MoreJobs says the workspace has
	// more than MaxJobs enabled jobs (only the first were counted).
	Jobs     int
	MoreJobs bool
	// Capped lists the jobs whose runs stopped being counted at
	// PerJobCap; Problems the jobs that could not be compiled.
	Capped   []string
	Problems []string
}

// Day is the runs of one day.
type Day struct {
	Date caldef.Date
	// Runs is how many runs fall on the day; Capped says there are more
	// (a job reached PerJobCap on or before it).
	Runs   int
	Capped bool
	// Excluded names the calendars used by the counted jobs that exclude
	// the day, with the entry's label ("holidays: Christmas Day").
	Excluded []string
	// Hours are the runs per hour of the day (filled by DayRuns).
	Hours [24]int
	// List are the day's runs in time order, at most MaxDayRuns (filled
	// by DayRuns); More is how many more there are.
	List []Run
	More int
}

// Run is one coming run.
type Run struct {
	At  time.Time
	Job models.ForecastJob
}

// compiled is a job with its rule.
type compiled struct {
	job       models.ForecastJob
	rule      *recurrence.Rule
	spread    recurrence.Spread // the job's recurrence.window: runs are counted when due
	remaining int               // runs left under recurrence.count; -1: no count
}

// load compiles the counted jobs of workspaceID, and lists the calendars
// they use.
func (f *Forecaster) load(ctx context.Context, workspaceID string) ([]compiled, []*recurrence.Calendar, bool, []string, error) {
	jobs, err := f.store.ForecastJobs(ctx, workspaceID, MaxJobs+1)
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("forecast: %w", err)
	}
	more := len(jobs) > MaxJobs
	if more {
		jobs = jobs[:MaxJobs]
	}
	cals, err := f.calendars(ctx, workspaceID)
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("forecast: %w", err)
	}
	var out []compiled
	var problems []string
	used := map[string]*recurrence.Calendar{}
	for _, j := range jobs {
		def, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
		if err != nil {
			problems = append(problems, j.Path()+": "+err.Error())
			continue
		}
		base := j.CreatedAt
		if j.ScheduleBase != nil {
			base = *j.ScheduleBase
		}
		rule, err := recurrence.CompileWith(def, base, recurrence.Options{Calendars: cals})
		if err != nil {
			problems = append(problems, j.Path()+": "+err.Error())
			continue
		}
		c := compiled{job: j, rule: rule, spread: recurrence.SpreadOf(def, j.ID), remaining: -1}
		if n := rule.Count(); n > 0 {
			c.remaining = max(n-int(j.ScheduledCount), 0)
		}
		if r := def.Recurrence; r != nil && r.Calendars != nil {
			for _, name := range r.Calendars.Exclude {
				if cal := cals[strings.ToLower(name)]; cal != nil {
					used[strings.ToLower(name)] = cal
				}
			}
		}
		out = append(out, c)
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	usedCals := make([]*recurrence.Calendar, len(names))
	for i, n := range names {
		usedCals[i] = used[n]
	}
	return out, usedCals, more, problems, nil
}

// each calls fn for the runs of c due from from (included) to to
// (excluded), at most PerJobCap; it reports whether the cap cut it short,
// and where. A run is counted when it is due (its spread window applied).
func (c compiled) each(from, to time.Time, fn func(time.Time)) (capped bool, at time.Time) {
	t := from.Add(-c.spread.Window - time.Nanosecond)
	for k := 0; ; {
		next, ok := c.rule.Next(t)
		if !ok || !next.Before(to) || (c.remaining >= 0 && k >= c.remaining) {
			return false, time.Time{}
		}
		t = next
		due := c.spread.Due(next)
		if due.Before(from) {
			continue
		}
		if !due.Before(to) {
			return false, time.Time{}
		}
		if k == PerJobCap {
			return true, due
		}
		fn(due)
		k++
	}
}

// excludedOn names the calendars of cals that exclude d.
func excludedOn(cals []*recurrence.Calendar, d caldef.Date) []string {
	var out []string
	for _, cal := range cals {
		if label, ok := cal.Excluded(d); ok {
			s := cal.Name()
			if label != "" {
				s += ": " + label
			}
			out = append(out, s)
		}
	}
	return out
}
