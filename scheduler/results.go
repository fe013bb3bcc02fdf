package scheduler

import (
	"sked/models"
	"time"
)

// writer records results in batches until results is closed and drained.
// Config.ResultWriters of them run at once.
func (e *Engine) writer() {
	batch := make([]models.AttemptOutcome, 0, e.cfg.ResultBatch)
	for first := range e.results {
		batch = append(batch[:0], first)
		batch = e.fill(batch)
		e.write(batch)
	}
}

// resultLinger is how long a writer waits for more results to join a
// batch while attempts are still running: a busy engine then commits its
// results in batches of many (one commit, one WAL flush each) rather than
// nearly one by one. It delays only the recording (and the wake-up for a
// retry or an error action), never an attempt's start.
const resultLinger = 5 * time.Millisecond

// fill adds to batch the results already waiting and, while attempts are
// running, those arriving within resultLinger, up to Config.ResultBatch.
func (e *Engine) fill(batch []models.AttemptOutcome) []models.AttemptOutcome {
	var linger <-chan time.Time
	for len(batch) < e.cfg.ResultBatch {
		select {
		case o, ok := <-e.results:
			if !ok {
				return batch
			}
			batch = append(batch, o)
			continue
		default:
		}
		if linger == nil {
			if len(e.sem) <= 1 {
				return batch // nothing else running (but perhaps the sender)
			}
			t := time.NewTimer(resultLinger)
			defer t.Stop()
			linger = t.C
		}
		select {
		case o, ok := <-e.results:
			if !ok {
				return batch
			}
			batch = append(batch, o)
		case <-linger:
			return batch
		}
	}
	return batch
}

// write records batch, retrying while the database is unavailable, until
// it succeeds or writing is cancelled (the results are then lost here, and
// the attempts' leases expire: another instance records them interrupted).
func (e *Engine) write(batch []models.AttemptOutcome) {
	backoff := e.cfg.ErrorBackoff
	for {
		if e.crashed.Load() {
			return
		}
		done, err := e.store.FinishAttempts(e.writeCtx, batch)
		if err == nil {
			e.observe(batch, done)
			return
		}
		if e.writeCtx.Err() != nil {
			e.logger.Error("engine: results not recorded", "count", len(batch), "err", err)
			return
		}
		e.logger.Warn("engine: recording results failed", "count", len(batch), "err", err, "retry_in", backoff.String())
		t := e.clock.NewTimer(backoff)
		select {
		case <-t.C():
		case <-e.writeCtx.Done():
		}
		t.Stop()
		backoff = min(2*backoff, 5*time.Second)
	}
}

// observe arms the alarm for the attempts that a written batch stored,
// and updates the metrics and logs.
func (e *Engine) observe(batch []models.AttemptOutcome, done []models.FinishedAttempt) {
	for i, f := range done {
		if f.NextStored && batch[i].Next != nil {
			e.alarm.set(batch[i].Next.DueAt)
		}
	}
	for i, f := range done {
		if !f.Recorded {
			e.logger.Info("engine: result not recorded (attempt no longer ours or job deleted)", "attempt_id", f.AttemptID)
			continue
		}
		status := models.StatusCompleted
		if !batch[i].Succeeded {
			status = models.StatusFailed
		}
		e.metrics.attempts.WithLabelValues(string(status), string(f.Action)).Inc()
		if f.Notifications > 0 {
			e.outbox.wake()
		}
		if f.JobEnded {
			e.logger.Info("engine: job ended", "job_id", f.JobID)
		}
	}
	if e.onFinish != nil {
		e.onFinish(batch, done)
	}
}
