package scheduler

import (
	"encoding/json"
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
	"sked/scheduler/recurrence"
)

// maxMissedCount caps how many missed occurrences are counted one by one
// for the Postponed entry; beyond it the entry says "at least".
const maxMissedCount = 1_000_000

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

// plan decides, at now, what happens to a job locked by ClaimDue (see
// models.ClaimRequest.Plan). It returns nil for a definition it cannot read.
//
//   - A job to schedule gets the first occurrence of its rule compiled for
//     its schedule base (SPEC §2's start-time table), unless
//     recurrence.count is already used up. A schedule base more than
//     MisfireGrace old (the job was created or enabled while no engine
//     ran, e.g. by `sked import`) is replaced by now.
//   - A due job whose occurrence is more than MisfireGrace late has missed
//     occurrences: they are skipped (one Postponed entry with their number
//     and span) and the next one within the grace runs; with misfirePolicy
//     runOnce the last missed occurrence runs at once instead.
//   - With concurrency forbid, an occurrence whose job still has an open
//     attempt (running, or waiting for a retry or error action) is
//     Postponed and not run.
//   - Skipped and postponed occurrences do not count against
//     recurrence.count; run occurrences do.
func (e *Engine) plan(j *models.EngineJob, now time.Time) *models.JobPlan {
	base := now
	var rebased *time.Time
	if j.ScheduleBase != nil {
		base = *j.ScheduleBase
	}
	if (j.NeedsSchedule || j.NextRunAt == nil) && now.Sub(base) > e.cfg.MisfireGrace {
		// No engine saw the job when it was created or enabled (none was
		// running): it is scheduled as if created now, rather than having
		// its first occurrences missed.
		base, rebased = now, &now
	}
	cals, err := e.jobCalendars(j)
	if err != nil {
		e.logger.Warn("engine: job cannot be scheduled", "job_id", j.ID, "err", err)
		return nil
	}
	cj, err := e.cache.get(j.ID, j.Definition, j.Secrets, &base, cals)
	if err != nil {
		e.logger.Warn("engine: job cannot be scheduled", "job_id", j.ID, "err", err)
		return nil
	}
	rule, count := cj.rule, int64(cj.rule.Count())
	p := &models.JobPlan{ScheduledCount: j.ScheduledCount, ScheduleBase: rebased}
	exhausted := func() bool { return count > 0 && p.ScheduledCount >= count }
	if j.NeedsSchedule || j.NextRunAt == nil {
		if next, ok := rule.Next(base.Add(-time.Second)); ok && !exhausted() {
			p.NextRunAt = &next
		}
		return p
	}
	expected := *j.NextRunAt
	if now.Sub(expected) > e.cfg.MisfireGrace {
		var missed int64
		first, last := expected, expected
		t, ok := expected, true
		for ok && now.Sub(t) > e.cfg.MisfireGrace && missed < maxMissedCount {
			missed++
			last = t
			t, ok = rule.Next(t)
		}
		if missed == maxMissedCount && ok && now.Sub(t) > e.cfg.MisfireGrace {
			t, ok = rule.Next(now.Add(-e.cfg.MisfireGrace))
		}
		runOnce := cj.job.MisfirePolicy == jobdef.MisfireRunOnce
		skipped := missed
		if runOnce {
			skipped-- // the last missed occurrence runs as the catch-up
		}
		if skipped > 0 {
			p.Postponed = append(p.Postponed, missedEntry(now, first, last, skipped, runOnce, j.OccurrenceCount))
			e.metrics.postponed.Inc()
		}
		switch {
		case runOnce:
			expected = last
		case !ok:
			return p
		case t.After(now):
			p.NextRunAt = &t
			return p
		default:
			expected = t
		}
	}
	if exhausted() {
		return p
	}
	if cj.job.Concurrency == jobdef.ConcurrencyForbid && j.OpenAttempts > 0 {
		end := now
		p.Postponed = append(p.Postponed, models.HistoryEntry{
			StartTime: now, EndTime: &end, ExpectedExecutionTime: expected, ActionName: models.MainAction,
			Status:      models.StatusPostponed,
			Message:     "The occurrence did not run: the previous occurrence of the job is still running (concurrency forbid).",
			RepeatCount: j.OccurrenceCount,
		})
		e.metrics.postponed.Inc()
	} else {
		p.Run = &models.PlannedRun{ExpectedTime: expected, Lease: e.lease(cj, models.MainAction)}
		p.ScheduledCount++
	}
	if next, ok := rule.Next(expected); ok && !exhausted() {
		p.NextRunAt = &next
	}
	return p
}

// missedEntry is the Postponed history entry for n skipped occurrences
// from first to last.
func missedEntry(now, first, last time.Time, n int64, runOnce bool, ordinal int64) models.HistoryEntry {
	end := now
	what := fmt.Sprintf("%d occurrences", n)
	if n == 1 {
		what = "1 occurrence"
	}
	if n >= maxMissedCount {
		what = fmt.Sprintf("at least %d occurrences", n)
	}
	msg := fmt.Sprintf("Missed %s between %s and %s (the instance was down or the job collection was disabled); skipped.",
		what, first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	if runOnce {
		msg += " The last missed occurrence runs once now (misfirePolicy runOnce)."
	}
	return models.HistoryEntry{
		StartTime: now, EndTime: &end, ExpectedExecutionTime: first, ActionName: models.MainAction,
		Status: models.StatusPostponed, Message: msg, RepeatCount: ordinal,
	}
}

// lease returns how long an attempt of action may be held: its timeout
// plus LeaseMargin.
func (e *Engine) lease(cj *compiledJob, act string) time.Duration {
	t := jobdef.DefaultTimeout
	if spec, _ := specsFor(cj, act); spec != nil {
		t = spec.Timeout
	}
	return t + e.cfg.LeaseMargin
}

// leaseFor is lease for a definition that may not be cached yet.
func (e *Engine) leaseFor(id int64, def json.RawMessage, secrets jobdef.Secrets, act string) time.Duration {
	cj, _ := e.cache.get(id, def, secrets, nil, jobCalendars{})
	return e.lease(cj, act)
}

// outcome decides what follows an attempt that ended at now: a retry of
// the same action while its retry policy allows, else (main action) the
// error action once, else the end of the occurrence.
func outcome(a *models.ClaimedAttempt, spec *jobdef.Action, mainSpec *jobdef.Action, res action.Result, now time.Time) models.AttemptOutcome {
	o := models.AttemptOutcome{AttemptID: a.ID, Now: now, Succeeded: res.Succeeded, Message: res.Message}
	if res.Succeeded {
		// An error action only runs when the main action faulted.
		o.OccurrenceFaulted = a.Action == models.ErrorAction
		return o
	}
	policy := jobdef.RetryPolicy{}
	if spec != nil {
		policy = spec.RetryPolicy
	}
	switch {
	case a.Attempt < policy.MaxAttempts():
		o.Next = &models.NextAttempt{Action: a.Action, Attempt: a.Attempt + 1, DueAt: now.Add(retryDelay(policy, a.Attempt))}
	case a.Action == models.MainAction:
		o.Faulted, o.OccurrenceFaulted = true, true
		if mainSpec != nil && mainSpec.ErrorAction != nil {
			o.Next = &models.NextAttempt{Action: models.ErrorAction, Attempt: 1, DueAt: now}
		}
	default:
		o.OccurrenceFaulted = true
	}
	return o
}
