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
// Start until the engine stops, measures the clock offset from the
// database with each beat (clockoffset.go), and hands the running attempts
// of dead instances (no heartbeat for DeadAfter by the database's clock)
// to the claim loop, which records them interrupted and applies their
// retry policies (see models.Store.Heartbeat).
//
// The claim loop waits for the first successful beat (retried every
// ErrorBackoff), so that every attempt this engine holds belongs to an
// instance with a row, which the others can find dead; after every beat
// it looks again whether it may claim (claimBlocked).
func (e *Engine) heartbeat() {
	for {
		wait := e.cfg.HeartbeatInterval
		ok := e.beat()
		if ok {
			e.firstBeat.Do(func() { close(e.beating) })
		} else if _, beaten := e.ClockOffset(); !beaten {
			wait = e.cfg.ErrorBackoff
		}
		select {
		case e.beaten <- struct{}{}:
		default:
		}
		t := e.own.NewTimer(wait)
		select {
		case <-e.bgCtx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// beat is one heartbeat, timed with the engine's own clock to measure
// the offset. It reports whether it succeeded.
func (e *Engine) beat() bool {
	ctx, cancel := context.WithTimeout(e.bgCtx, e.cfg.HeartbeatInterval)
	defer cancel()
	before := e.own.Now()
	e.clockMu.Lock()
	last, beaten := e.clockState.lastBeat, e.clockState.beaten
	// After its own beats failed (or stopped for DeadAfter), this
	// instance does not judge the others for DeadAfter: their heartbeats
	// may be stale by the same database outage, and their attempts in
	// flight go on.
	if e.clockState.failing || beaten && before.Sub(last) >= e.cfg.DeadAfter {
		e.clockState.quietUntil = before.Add(e.cfg.DeadAfter)
	}
	quiet := before.Before(e.clockState.quietUntil)
	e.clockMu.Unlock()
	res, err := e.store.Heartbeat(ctx, models.Heartbeat{ID: e.id, DeadAfter: e.cfg.DeadAfter,
		Version: e.cfg.Version, SchemaVersion: e.schemaVersion, SkipRecovery: quiet, Now: e.clock.Now()})
	after := e.own.Now()
	e.clockMu.Lock()
	e.clockState.failing = err != nil
	e.clockMu.Unlock()
	if err != nil {
		if e.bgCtx.Err() == nil {
			e.logger.Warn("engine: heartbeat failed", "instance", e.id, "err", err)
		}
		return false
	}
	if beaten && before.Sub(last) >= e.cfg.DeadAfter {
		e.logger.Warn("engine: heartbeat renewed after a gap: other instances may have recovered this instance's running attempts",
			"instance", e.id, "gap", before.Sub(last).String())
	}
	e.recordBeat(before, after, res.DatabaseTime)
	if e.attemptRows.Swap(res.OlderLive) != res.OlderLive {
		e.logger.Info("engine: how attempts are started changed", "instance", e.id,
			"attempt_rows", res.OlderLive)
	}
	if _, err := e.store.FeedBackfills(ctx, e.clock.Now()); err != nil && e.bgCtx.Err() == nil {
		e.logger.Warn("engine: feeding backfills failed", "instance", e.id, "err", err)
	}
	e.fireTriggers(ctx) // triggers.go: the ends that an engine recorded and did not fire (it stopped)
	e.refreshUpstreams(ctx)
	if res.Expired > 0 {
		e.logger.Warn("engine: attempts of instances without heartbeat handed over for recovery", "instance", e.id,
			"attempts", res.Expired)
		e.wake()
	}
	return true
}
