package engine

import (
	"context"
	"sync"
	"time"

	"sked/models"
	"sked/scheduler/recurrence"
)

// deadlineWatch is what the engine keeps in memory for the deadlines of
// jobs (SPEC §17.2): the earliest deadline moment its claims recorded
// (until the watcher reads it from the store: a claim's watch rows are
// committed after plan returns), and the attempts it runs whose job has
// deadline.maxDuration, with the moment each becomes slow. Safe for
// concurrent use.
type deadlineWatch struct {
	poke chan struct{}

	mu sync.Mutex
	// alarm is the earliest deadline moment noted by plan and not yet
	// reached (zero: none).
	alarm time.Time
	// slow are the attempts of this engine whose slowRun is still to
	// come, by attempt id.
	slow map[int64]models.SlowAttempt
}

// newDeadlineWatch returns an empty watch.
func newDeadlineWatch() *deadlineWatch {
	return &deadlineWatch{poke: make(chan struct{}, 1), slow: map[int64]models.SlowAttempt{}}
}

// wake makes watchDeadlines look again at once; a wake-up already
// pending absorbs it.
func (w *deadlineWatch) wake() {
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

// note records a deadline moment that a claim is recording, and wakes
// the watcher when it is the earliest.
func (w *deadlineWatch) note(at time.Time) {
	w.mu.Lock()
	earlier := w.alarm.IsZero() || at.Before(w.alarm)
	if earlier {
		w.alarm = at
	}
	w.mu.Unlock()
	if earlier {
		w.wake()
	}
}

// deadlinesOf returns the deadline watches of a plan of job jobID with
// compiled job cj: the occurrence it starts, and the one it skips (the
// newest of a missed run, or one held back by concurrency forbid), each
// due at its spread-shifted time and decided succeedWithin later. Nil
// when the job has no deadline.succeedWithin.
func (e *Engine) deadlinesOf(cj *compiledJob, jobID int64, run, overlap, skipped *time.Time) []models.DeadlineWatch {
	if cj == nil || cj.job.Deadline == nil || cj.job.Deadline.SucceedWithin <= 0 {
		return nil
	}
	within := cj.job.Deadline.SucceedWithin
	spread := recurrence.SpreadOf(cj.job, jobID)
	var out []models.DeadlineWatch
	add := func(t *time.Time, skip bool) {
		if t == nil {
			return
		}
		due := spread.Due(*t)
		out = append(out, models.DeadlineWatch{ExpectedTime: *t, DueAt: due, DeadlineAt: due.Add(within), Skipped: skip})
		e.deadlines.note(due.Add(within))
	}
	add(run, false)
	add(overlap, true)
	if skipped != nil && (run == nil || !skipped.Equal(*run)) {
		add(skipped, true)
	}
	return out
}

// watchSlow registers attempt a, which this engine is about to run, when
// its job has deadline.maxDuration, and returns the function that
// unregisters it when the attempt ended (nil when there is nothing to
// watch).
func (e *Engine) watchSlow(a *models.ClaimedAttempt, cj *compiledJob) func() {
	if cj == nil || cj.job.Deadline == nil || cj.job.Deadline.MaxDuration <= 0 {
		return nil
	}
	w := e.deadlines
	at := a.StartedAt.Add(cj.job.Deadline.MaxDuration)
	w.mu.Lock()
	w.slow[a.ID] = models.SlowAttempt{AttemptID: a.ID, JobID: a.JobID, Action: a.Action, Attempt: a.Attempt,
		ExpectedTime: a.ExpectedTime, Occurrence: a.Occurrence, StartedAt: a.StartedAt, Now: at}
	w.mu.Unlock()
	w.wake()
	return func() {
		w.mu.Lock()
		delete(w.slow, a.ID)
		w.mu.Unlock()
	}
}

// watchDeadlines raises the deadline events of jobs (SPEC §17.2) until
// the engine stops: each round decides the watched occurrences whose
// deadline moment passed (models.Store.DecideDeadlines: met or
// deadlineMissed, once across engines) and raises slowRun for this
// engine's attempts running longer than their job's maxDuration
// (models.Store.RaiseJobSlowRun, once), then sleeps until the earliest
// next such moment (a timer, not a poll), a wake-up (a claim that records
// a deadline, an attempt started with a maxDuration) or the safety poll,
// which finds the deadlines other engines recorded. It decides nothing
// while the engine may not claim (claimBlocked).
func (e *Engine) watchDeadlines() {
	e.watchTimed("deadlines", e.evaluateDeadlines, e.deadlines.poke)
}

// evaluateDeadlines runs one round of watchDeadlines at the engine's now
// and returns when the next round is due (zero: nothing is expected).
func (e *Engine) evaluateDeadlines(ctx context.Context) (time.Time, error) {
	now := e.clock.Now()
	w := e.deadlines
	w.mu.Lock()
	if !w.alarm.IsZero() && !w.alarm.After(now) {
		w.alarm = time.Time{}
	}
	next := w.alarm
	var slow []models.SlowAttempt
	for id, a := range w.slow {
		if a.Now.After(now) {
			if next.IsZero() || a.Now.Before(next) {
				next = a.Now
			}
			continue
		}
		slow = append(slow, a)
		delete(w.slow, id)
	}
	w.mu.Unlock()
	for _, a := range slow {
		a.Now = now
		raised, err := e.store.RaiseJobSlowRun(ctx, a)
		if err != nil {
			return time.Time{}, err
		}
		if raised {
			e.logger.Info("engine: slow run", "job_id", a.JobID, "attempt_id", a.AttemptID, "started", a.StartedAt)
		}
	}
	for {
		d, err := e.store.DecideDeadlines(ctx, now)
		if err != nil {
			return time.Time{}, err
		}
		if d.Missed > 0 {
			e.logger.Info("engine: deadlines missed", "missed", d.Missed, "met", d.Met, "events", d.Events)
		}
		if !d.More {
			break
		}
	}
	at, ok, err := e.store.NextDeadline(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if ok && (next.IsZero() || at.Before(next)) {
		next = at
	}
	return next, nil
}
