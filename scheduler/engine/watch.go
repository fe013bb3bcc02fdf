package engine

import (
	"context"
	"errors"
	"time"
)

// watchTimed runs the rounds of a watcher (monitors, deadlines) until the
// engine stops: each round calls evaluate, which decides what is due at
// the engine's now and returns when its next round is due (zero: nothing
// is expected); between rounds it sleeps on the engine's clock until that
// moment (a timer, not a poll), a wake-up on poke, or the safety poll,
// which finds what other engines recorded. A failed round is retried after
// ErrorBackoff and logged with what, the watcher's name. It evaluates
// nothing while the engine may not claim (claimBlocked: no heartbeat yet,
// or the clock too far from the database's) and then looks again each
// HeartbeatInterval.
func (e *Engine) watchTimed(what string, evaluate func(context.Context) (time.Time, error), poke <-chan struct{}) {
	for {
		delay := e.cfg.SafetyPoll
		if err := e.claimBlocked(); err == nil {
			next, err := evaluate(e.bgCtx)
			switch {
			case errors.Is(err, context.Canceled) && e.bgCtx.Err() != nil:
				return
			case err != nil:
				e.logger.Warn("engine: evaluating "+what+" failed", "err", err)
				delay = e.cfg.ErrorBackoff
			case !next.IsZero():
				delay = min(delay, max(0, next.Sub(e.clock.Now())))
			}
		} else {
			delay = min(delay, e.cfg.HeartbeatInterval)
		}
		t := e.clock.NewTimer(delay)
		select {
		case <-e.bgCtx.Done():
			t.Stop()
			return
		case <-t.C():
		case <-poke:
		}
		t.Stop()
	}
}
