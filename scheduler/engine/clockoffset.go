package engine

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Clocks (SPEC §14.3). Each heartbeat measures this instance's offset
// from the database's clock: offset = database − (sent + round trip / 2),
// the database's clock read in the beat's one statement, the beat timed
// with the instance's own clock. Leases and heartbeats are judged by the
// database's clock, in SQL; due times by the engine's clock, which is the
// injected clock moved back when it may be ahead of the database's
// (dueClock): by database − received, the most it can be ahead given the
// round trip, so that due decisions use the earlier of the two clocks and
// no occurrence starts before its time by either (an instance in step
// with the database decides half a round trip late, a few milliseconds). An instance
// behind the database starts its work late by its offset (the others,
// when there are, take it at its time). Above Config.MaxClockOffset the
// instance claims nothing (Ready says why), as it does before its first
// heartbeat and once its heartbeat has not been renewed for
// Config.DeadAfter less one Config.HeartbeatInterval (the others may soon
// find it dead and take its work over).

// offsetWarning is the offset above which the log warns (once per
// crossing).
const offsetWarning = 500 * time.Millisecond

// dueClock is the engine's clock for due decisions: own, moved back by
// ahead (how far own is ahead of the database's clock, never negative).
// Its timers are own's. Safe for concurrent use.
type dueClock struct {
	own   Clock
	ahead atomic.Int64 // nanoseconds
}

// Now returns own's time less ahead.
func (c *dueClock) Now() time.Time { return c.own.Now().Add(-time.Duration(c.ahead.Load())) }

// NewTimer returns own's timer.
func (c *dueClock) NewTimer(d time.Duration) Timer { return c.own.NewTimer(d) }

// clockState is what the heartbeat knows about this instance's clock and
// renewals; Engine.clockMu guards it.
type clockState struct {
	// beaten says a beat succeeded; lastBeat (own clock) is when the
	// latest successful one was sent.
	beaten   bool
	lastBeat time.Time
	// failing says the latest beat failed; quietUntil (own clock) is when
	// the beats, renewed again after failing or a gap of DeadAfter,
	// recover dead instances again (models.Heartbeat.SkipRecovery).
	failing    bool
	quietUntil time.Time
	// offset is the latest measured offset (database − own clock).
	offset time.Duration
	// warned says the offset is above offsetWarning (logged once).
	warned bool
	// blocked is the reason the claim loop last found it may not claim
	// ("" while it may), for logging the changes only.
	blocked string
}

// recordBeat records a successful beat sent at before and answered at
// after (both on the instance's own clock) that read the database's clock
// at db: it measures the offset, sets the gauge and the due clock, and
// warns when the offset crosses offsetWarning.
func (e *Engine) recordBeat(before, after, db time.Time) time.Duration {
	offset := db.Sub(before.Add(after.Sub(before) / 2))
	e.due.ahead.Store(int64(max(0, after.Sub(db))))
	e.metrics.clockOffset.Set(offset.Seconds())
	e.clockMu.Lock()
	e.clockState.beaten, e.clockState.lastBeat, e.clockState.offset = true, before, offset
	crossed, warned := false, e.clockState.warned
	if over := offset.Abs() > offsetWarning; over != warned {
		crossed, e.clockState.warned = true, over
	}
	e.clockMu.Unlock()
	switch {
	case crossed && !warned:
		e.logger.Warn("engine: clock offset from the database above 500ms", "instance", e.id,
			"offset", formatOffset(offset), "offset_seconds", offset.Seconds())
	case crossed:
		e.logger.Info("engine: clock offset from the database back under 500ms", "instance", e.id,
			"offset", formatOffset(offset), "offset_seconds", offset.Seconds())
	}
	return offset
}

// formatOffset writes an offset in seconds with its sign: "+61.2s".
func formatOffset(d time.Duration) string {
	return fmt.Sprintf("%+.1fs", d.Seconds())
}

// claimBlocked returns why this engine may not start attempts now, nil
// when it may: no heartbeat yet, the heartbeat not renewed for too long,
// or the clock too far from the database's.
func (e *Engine) claimBlocked() error {
	e.clockMu.Lock()
	st := e.clockState
	e.clockMu.Unlock()
	if !st.beaten {
		return errors.New("engine: no heartbeat written yet")
	}
	if limit := e.cfg.DeadAfter - e.cfg.HeartbeatInterval; e.own.Now().Sub(st.lastBeat) >= limit {
		return fmt.Errorf("engine: heartbeat not renewed for %s (others may take this instance's work over after %s)",
			e.own.Now().Sub(st.lastBeat).Round(time.Millisecond), e.cfg.DeadAfter)
	}
	if e.cfg.MaxClockOffset > 0 && st.offset.Abs() > e.cfg.MaxClockOffset {
		return fmt.Errorf("clock offset from the database is %s, above --max-clock-offset %s",
			formatOffset(st.offset), e.cfg.MaxClockOffset)
	}
	return nil
}

// outboxBlocked reports whether the notification outbox must claim
// nothing: after the first heartbeat, when the engine may not claim (the
// outbox does not wait for the first heartbeat, as the claim loop does:
// notifications are not recovered through heartbeats).
func (e *Engine) outboxBlocked() bool {
	if _, beaten := e.ClockOffset(); !beaten {
		return false
	}
	return e.claimBlocked() != nil
}

// Ready returns nil while the engine starts attempts, else why it does
// not: it was not started or is stopping, no heartbeat was written yet,
// its heartbeat has not been renewed for Config.DeadAfter less one
// Config.HeartbeatInterval, or its clock offset from the database is above
// Config.MaxClockOffset (the error names the offset). /readyz answers 503
// with it. Safe for concurrent use.
func (e *Engine) Ready() error {
	e.mu.Lock()
	started, stopped := e.started, e.stopped
	e.mu.Unlock()
	switch {
	case stopped:
		return errors.New("engine: stopped")
	case !started:
		return errors.New("engine: not started")
	}
	return e.claimBlocked()
}

// ClockOffset returns the latest measured offset of this instance's clock
// from the database's (database − instance), and false before the first
// successful heartbeat.
func (e *Engine) ClockOffset() (time.Duration, bool) {
	e.clockMu.Lock()
	defer e.clockMu.Unlock()
	return e.clockState.offset, e.clockState.beaten
}

// waitClaimable waits, while claimBlocked reports a reason, for a beat to
// change it; it logs when the engine stops and starts claiming again. It
// reports false when the engine stops claiming.
func (e *Engine) waitClaimable() bool {
	for {
		err := e.claimBlocked()
		reason := ""
		if err != nil {
			reason = err.Error()
		}
		e.clockMu.Lock()
		was := e.clockState.blocked
		e.clockState.blocked = reason
		e.clockMu.Unlock()
		switch {
		case reason != "" && reason != was && was == "":
			e.logger.Warn("engine: not starting attempts", "instance", e.id, "reason", reason)
		case reason == "" && was != "":
			e.logger.Info("engine: starting attempts again", "instance", e.id)
		}
		if reason == "" {
			return true
		}
		e.ride.setBusy(false) // the writers write their results themselves
		select {
		case <-e.beaten:
		case <-e.stopClaiming:
			return false
		}
	}
}
