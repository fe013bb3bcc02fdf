package engine

import (
	"context"
	"time"

	"sked/models"
)

// deadInstanceMaxAge is how long the row of an instance whose heartbeat
// stopped is kept (for the record) before retention deletes it, once it
// holds no running attempt.
const deadInstanceMaxAge = 24 * time.Hour

// heartbeat renews this engine's heartbeat every HeartbeatInterval, from
// Start until the engine stops, and hands the running attempts of dead
// instances (no heartbeat for DeadAfter) to the claim loop, which records
// them interrupted and applies their retry policies (see
// models.Store.Heartbeat).
//
// The claim loop waits for the first successful beat (retried every
// ErrorBackoff), so that every attempt this engine holds belongs to an
// instance with a row, which the others can find dead.
func (e *Engine) heartbeat() {
	last := time.Time{}
	for {
		wait := e.cfg.HeartbeatInterval
		if e.beat(&last) {
			e.firstBeat.Do(func() { close(e.beating) })
		} else if last.IsZero() {
			wait = e.cfg.ErrorBackoff
		}
		t := e.clock.NewTimer(wait)
		select {
		case <-e.bgCtx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// beat is one heartbeat; last is the time of the latest successful one.
// It reports whether it succeeded.
func (e *Engine) beat(last *time.Time) bool {
	ctx, cancel := context.WithTimeout(e.bgCtx, e.cfg.HeartbeatInterval)
	defer cancel()
	now := e.clock.Now()
	n, err := e.store.Heartbeat(ctx, models.Heartbeat{ID: e.id, Now: now, DeadBefore: now.Add(-e.cfg.DeadAfter),
		Version: e.cfg.Version, SchemaVersion: e.schemaVersion})
	if err != nil {
		if e.bgCtx.Err() == nil {
			e.logger.Warn("engine: heartbeat failed", "instance", e.id, "err", err)
		}
		return false
	}
	if !last.IsZero() && now.Sub(*last) >= e.cfg.DeadAfter {
		e.logger.Warn("engine: heartbeat renewed after a gap: other instances may have recovered this instance's running attempts",
			"instance", e.id, "gap", now.Sub(*last).String())
	}
	*last = now
	if n > 0 {
		e.logger.Warn("engine: attempts of instances without heartbeat handed over for recovery", "instance", e.id, "attempts", n)
		e.wake()
	}
	return true
}
