package engine

import "time"

// idleRecheck is the wait before claiming again when something is due but
// nothing could be claimed (its rows are locked by another instance for a
// moment).
const idleRecheck = 50 * time.Millisecond

// loop claims and dispatches until stopClaiming is closed.
func (e *Engine) loop() {
	defer e.outbox.engineClaimed(1, 0) // no more due work from this loop
	defer e.ride.setBusy(false)        // the writers write what they hold
	select {
	case <-e.beating:
	case <-e.stopClaiming:
		return
	}
	backoff := e.cfg.ErrorBackoff
	// burst counts the attempts started by the claims in a row that took
	// every free worker: from overlapFrom on, the overlap loops share the
	// burst (overlap.go).
	burst, overlapFrom := 0, overlapAfter*cap(e.sem)
	var notifyC <-chan struct{}
	if e.notify != nil {
		notifyC = e.notify.C()
	}
	for {
		select {
		case <-e.stopClaiming:
			return
		default:
		}
		if !e.waitClaimable() {
			return
		}
		if e.freeSlots() < e.minBatch {
			// Busy: let a few workers finish rather than claim one at a time.
			if !e.waitSlots(e.slotFreed, e.minBatch, slotWait) {
				return
			}
		}
		limit := cap(e.sem)
		if burst >= overlapFrom {
			limit = e.burstShare()
		}
		free := e.reserveSlots(limit)
		c, err := e.claim(free)
		e.releaseSlots(free)
		filled := err == nil && free > 0 && c.started == free
		if filled {
			burst += c.started
		} else {
			burst = 0
		}
		started, claimed := c.started, c.rows
		if err != nil {
			e.logger.Warn("engine: claim failed", "err", err, "retry_in", backoff.String())
			if !e.sleep(backoff, notifyC, nil) {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = e.cfg.ErrorBackoff
		e.outbox.engineClaimed(free, started)
		e.ride.noteClaim(free, started)
		if filled {
			if burst >= overlapFrom {
				e.burst.fill() // the overlap loops claim beside this one
			}
			continue // there may be more due
		}
		delay := e.cfg.SafetyPoll
		at, ok, err := c.next, c.hasNext, error(nil)
		if !c.wakeRead {
			at, ok, err = e.store.NextWake(e.bgCtx, e.clock.Now())
		}
		switch {
		case err != nil:
			e.logger.Warn("engine: next wake-up time", "err", err)
			delay = e.cfg.ErrorBackoff
		case ok:
			delay = min(delay, at.Sub(e.clock.Now()))
		}
		if at, ok := e.alarm.next(); ok {
			if !at.After(e.clock.Now()) && free > started {
				continue // stored while this claim ran: claim again at once
			}
			delay = min(delay, at.Sub(e.clock.Now()))
		}
		var slotC chan struct{}
		if delay <= 0 {
			switch {
			case free-started <= 0:
				// Due work waits for a free worker.
				slotC, delay = e.slotFreed, e.cfg.SafetyPoll
			case claimed == 0:
				delay = idleRecheck
			default:
				continue
			}
		}
		if !e.sleep(delay, notifyC, slotC) {
			return
		}
	}
}

// slotWait bounds how long a busy loop waits for workers to free up before
// it claims anyway.
const slotWait = 10 * time.Millisecond

// waitSlots waits until at least n workers are free (freeSlots) or d has
// passed, looking again whenever freed receives (the loop's e.slotFreed,
// the overlap loops' e.overlapFreed: each worker that ends signals both);
// it reports false when the engine stops claiming.
func (e *Engine) waitSlots(freed <-chan struct{}, n int, d time.Duration) bool {
	t := e.clock.NewTimer(d)
	defer t.Stop()
	for e.freeSlots() < n {
		select {
		case <-freed:
		case <-t.C():
			return true
		case <-e.stopClaiming:
			return false
		}
	}
	return true
}

// sleep waits for delay, a notification, a poke, a slot or the alarm
// (when armed earlier than the end of the wait: the timer is then moved to
// it); it reports false when the engine stops claiming.
func (e *Engine) sleep(delay time.Duration, notifyC <-chan struct{}, slotC <-chan struct{}) bool {
	until := e.clock.Now().Add(delay)
	t := e.clock.NewTimer(delay)
	defer func() { t.Stop() }()
	for {
		select {
		case <-t.C():
		case <-notifyC:
			e.pokeMonitors() // a monitor may have changed, or been started
		case <-e.poke:
			e.pokeMonitors()
		case <-slotC:
		case <-e.stopClaiming:
			return false
		case <-e.alarm.c:
			at, ok := e.alarm.next()
			if !ok || !at.Before(until) {
				continue
			}
			now := e.clock.Now()
			if !at.After(now) {
				return true
			}
			t.Stop()
			t, until = e.clock.NewTimer(at.Sub(now)), at
			continue
		}
		return true
	}
}
