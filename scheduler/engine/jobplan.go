package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// compiledJob is a parsed job definition with its action and, once asked
// for, its rule for one schedule base. It is immutable once cached.
type compiledJob struct {
	def     []byte
	secrets jobdef.Secrets
	job     *jobdef.Job
	base    time.Time
	stamp   string // the calendars' stamp the rule was compiled with
	rule    *recurrence.Rule
}

// jobCalendars are the calendars a rule is compiled with, and the stamp
// that changes whenever one of them does.
type jobCalendars struct {
	cals  recurrence.Calendars
	stamp string
}

// plan decides, at now, what happens to a job locked by Store.Claim (see
// models.ClaimRequest.Plan) with the pure planner (plan.Decide, which says
// how), and turns its decision into what the store writes: the Postponed
// history entries, the occurrence to start with its lease, the job's end.
// It returns nil for a definition it cannot read.
func (e *Engine) plan(j *models.EngineJob, now time.Time) *models.JobPlan {
	cals, err := e.jobCalendars(j)
	if err != nil {
		e.logger.Warn("engine: job cannot be scheduled", "job_id", j.ID, "err", err)
		return nil
	}
	cj, err := e.cache.get(j.ID, j.Definition, j.Secrets, nil, jobCalendars{})
	if err != nil {
		e.logger.Warn("engine: job cannot be scheduled", "job_id", j.ID, "err", err)
		return nil
	}
	compile := func(base time.Time) (plan.Rule, error) {
		c, err := e.cache.get(j.ID, j.Definition, j.Secrets, &base, cals)
		if err != nil {
			return nil, err
		}
		cj = c
		return c.rule, nil
	}
	d, err := plan.Decide(engineState(j), plan.Policy{
		Misfire: cj.job.MisfirePolicy, Concurrency: cj.job.Concurrency, Grace: e.cfg.MisfireGrace,
		Spread: recurrence.SpreadOf(cj.job, j.ID),
	}, compile, now)
	if err != nil {
		e.logger.Warn("engine: job cannot be scheduled", "job_id", j.ID, "err", err)
		return nil
	}
	p := &models.JobPlan{NextRunAt: d.Next, ScheduledCount: d.ScheduledCount, ScheduleBase: d.Rebase, End: d.End}
	if d.Missed != nil || d.Overlap != nil || d.End != "" {
		p.Description = describe(cj)
	}
	if m := d.Missed; m != nil {
		p.Postponed = append(p.Postponed, missedEntry(now, m, j.OccurrenceCount))
		e.metrics.postponed.Inc()
	}
	if d.Overlap != nil {
		end := now
		p.Postponed = append(p.Postponed, models.HistoryEntry{
			StartTime: now, EndTime: &end, ExpectedExecutionTime: *d.Overlap, ActionName: models.MainAction,
			Status:      models.StatusPostponed,
			Message:     "The occurrence did not run: the previous occurrence of the job is still running (concurrency forbid).",
			RepeatCount: j.OccurrenceCount,
		})
		e.metrics.postponed.Inc()
	}
	if d.Run != nil {
		p.Run = &models.PlannedRun{ExpectedTime: *d.Run, DueAt: recurrence.SpreadOf(cj.job, j.ID).Due(*d.Run),
			Lease: e.lease(cj, models.MainAction)}
	}
	var skipped *time.Time
	if m := d.Missed; m != nil {
		skipped = &m.Last
	}
	p.Deadlines = e.deadlinesOf(cj, j.ID, d.Run, d.Overlap, skipped)
	return p
}

// engineState is the planner's view of a job locked by Store.Claim (always
// enabled).
func engineState(j *models.EngineJob) plan.State {
	return plan.State{
		Status: jobdef.Enabled, ScheduleBase: j.ScheduleBase, NeedsSchedule: j.NeedsSchedule, NextRunAt: j.NextRunAt,
		ScheduledCount: j.ScheduledCount, OccurrenceCount: j.OccurrenceCount, OpenAttempts: j.OpenAttempts,
		LastOccurrenceFaulted: j.LastOccurrenceFaulted,
	}
}

// missedEntry is the Postponed history entry for the missed occurrences m.
func missedEntry(now time.Time, m *plan.Missed, ordinal int64) models.HistoryEntry {
	end := now
	what := fmt.Sprintf("%d occurrences", m.Count)
	if m.Count == 1 {
		what = "1 occurrence"
	}
	if m.AtLeast {
		what = fmt.Sprintf("at least %d occurrences", m.Count)
	}
	msg := fmt.Sprintf("Missed %s between %s and %s (the instance was down or the job collection was disabled); skipped.",
		what, m.First.UTC().Format(time.RFC3339), m.Last.UTC().Format(time.RFC3339))
	if m.RunOnce {
		msg += " The last missed occurrence runs once now (misfirePolicy runOnce)."
	}
	return models.HistoryEntry{
		StartTime: now, EndTime: &end, ExpectedExecutionTime: m.First, ActionName: models.MainAction,
		Status: models.StatusPostponed, Message: msg, RepeatCount: ordinal,
	}
}

// lease returns how long an attempt of action may be held: its timeout
// plus LeaseMargin.
func (e *Engine) lease(cj *compiledJob, act models.ActionName) time.Duration {
	t := jobdef.DefaultTimeout
	if spec, _ := specsFor(cj, act); spec != nil {
		t = spec.Timeout
	}
	return t + e.cfg.LeaseMargin
}

// leaseFor is lease for a definition that may not be cached yet.
func (e *Engine) leaseFor(id int64, def json.RawMessage, secrets jobdef.Secrets, act models.ActionName) time.Duration {
	cj, _ := e.cache.get(id, def, secrets, nil, jobCalendars{})
	return e.lease(cj, act)
}
