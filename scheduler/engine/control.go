package engine

import (
	"context"
	"fmt"
)

// RunNow queues an immediate extra occurrence of job jobID (SPEC §7
// "run"): it starts within moments on whichever instance claims it. The
// schedule is unchanged, the run does not count against recurrence.count,
// and it starts even when the job's concurrency is forbid and an
// occurrence is running. Its Idempotency-Key carries the request's time
// (microseconds). A run requested while the job's collection is disabled
// waits for the collection to be enabled. It returns the attempt id (the execution tag), or an
// error wrapping models.ErrNotFound, models.ErrJobNotEnabled or
// models.ErrJobFinished.
func (e *Engine) RunNow(ctx context.Context, jobID int64) (int64, error) {
	id, err := e.store.RunNow(ctx, jobID, e.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("engine: run now: %w", err)
	}
	e.wake()
	return id, nil
}

// EnableJob enables job jobID; its next occurrence is computed from now
// (occurrences missed while it was disabled are not run). It returns an
// error wrapping models.ErrNotFound or models.ErrJobFinished.
func (e *Engine) EnableJob(ctx context.Context, jobID int64) error {
	if err := e.store.SetJobEnabled(ctx, jobID, true, e.clock.Now()); err != nil {
		return fmt.Errorf("engine: enable job: %w", err)
	}
	e.wake()
	return nil
}

// DisableJob disables job jobID: nothing of it runs any more; an attempt
// already running finishes and is recorded, without retry. It returns an
// error wrapping models.ErrNotFound or models.ErrJobFinished.
func (e *Engine) DisableJob(ctx context.Context, jobID int64) error {
	if err := e.store.SetJobEnabled(ctx, jobID, false, e.clock.Now()); err != nil {
		return fmt.Errorf("engine: disable job: %w", err)
	}
	return nil
}

// Wake makes the engine look for due attempts at once: a writer outside
// the engine (the write service) calls it after committing a run it
// queued, so this instance need not wait for its own notification. Safe
// for concurrent use; a wake-up already pending absorbs it.
func (e *Engine) Wake() { e.wake() }

// wake makes the loop look at the database again.
func (e *Engine) wake() {
	select {
	case e.poke <- struct{}{}:
	default:
	}
}
