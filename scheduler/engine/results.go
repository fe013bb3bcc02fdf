package engine

import (
	"sked/models"
	"time"
)

// writer records results in batches until results is closed and drained.
// Config.ResultWriters of them run at once, but one fills a batch at a
// time (filling): the next starts filling when the last one's batch is
// being written, so that a burst's results make one batch, not one per
// writer.
func (e *Engine) writer() {
	for {
		batch, ok := e.nextBatch()
		if !ok {
			return
		}
		e.write(batch)
	}
}

// nextBatch returns the next batch for a writer to write (false: results
// is closed and drained). A batch of successes that the busy claim loop
// takes (resultRide) is recorded by the loop instead and not returned.
// The writer holds the filling token only while it fills: while it
// offers a batch to the loop, the other writer fills the next one (a
// failure among them is written at once).
func (e *Engine) nextBatch() ([]models.AttemptOutcome, bool) {
	for {
		batch, ok := e.fillNext()
		if !ok {
			return nil, false
		}
		if e.rideable(batch) && e.ride.offer(batch, rideWait) {
			continue // the loop's next claim records it
		}
		return batch, true
	}
}

// fillNext waits for the filling token and the next result, and returns
// the batch fill makes from it (false: results is closed and drained).
func (e *Engine) fillNext() ([]models.AttemptOutcome, bool) {
	e.filling <- struct{}{}
	defer func() { <-e.filling }()
	first, ok := <-e.results
	if !ok {
		return nil, false
	}
	e.awaiting.Add(-1)
	return e.fill(append(make([]models.AttemptOutcome, 0, e.cfg.ResultBatch), first)), true
}

// resultLinger is how long a writer waits for more results to join a
// batch while attempts are still running: a busy engine then commits its
// results in batches of many (one commit, one WAL flush each) rather than
// nearly one by one. A batch of successes waits up to successLinger, or
// until nothing else runs: a burst's results are then recorded in a
// commit or two, and a success waits for nothing (no retry, no error
// action). A failure ends the wait
// at once: its retry, error action or notification is not delayed, and
// so does the end of an attempt under a target limit, whose slot attempts
// waiting for the limit need. Otherwise it delays only the recording,
// never an attempt's start.
const (
	resultLinger  = 5 * time.Millisecond
	successLinger = 250 * time.Millisecond
)

// fill adds to batch the results already waiting and, while attempts are
// running, those arriving within successLinger (resultLinger once it
// holds a failure, and not at all after a failure arrives), up to
// Config.ResultBatch.
func (e *Engine) fill(batch []models.AttemptOutcome) []models.AttemptOutcome {
	var linger <-chan time.Time
	// A failure, or the end of an attempt under a target limit (its slot
	// is waited for), lingers only resultLinger.
	failed := !batch[0].Succeeded || batch[0].Limited || batch[0].Upstream
	for len(batch) < e.cfg.ResultBatch {
		select {
		case o, ok := <-e.results:
			if !ok {
				return batch
			}
			e.awaiting.Add(-1)
			batch = append(batch, o)
			failed = failed || !o.Succeeded || o.Limited || o.Upstream
			continue
		default:
		}
		if linger == nil {
			if e.awaiting.Load() <= 0 {
				return batch // nothing else running
			}
			d := successLinger
			if failed {
				d = resultLinger
			}
			t := time.NewTimer(d)
			defer t.Stop()
			linger = t.C
		}
		select {
		case o, ok := <-e.results:
			if !ok {
				return batch
			}
			e.awaiting.Add(-1)
			batch = append(batch, o)
			if (!o.Succeeded || o.Limited || o.Upstream) && !failed || e.awaiting.Load() <= 0 {
				return batch // a failure waits for nothing; nothing else runs
			}
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
	e.fireTriggersOf(done) // triggers.go
	if e.onFinish != nil {
		e.onFinish(batch, done)
	}
}
