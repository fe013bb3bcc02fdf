package engine

import (
	"sync"
	"time"
)

// alarm holds the earliest due time of the attempts an engine stored
// itself (a retry, an error action) or was notified of by another engine,
// so that the claim loop wakes at that time without asking the database
// first. Safe for concurrent use.
type alarm struct {
	mu sync.Mutex
	at time.Time // zero: not armed
	// c receives a value (capacity 1) whenever at moves earlier.
	c chan struct{}
}

// set arms the alarm for t, unless it is armed earlier already.
func (a *alarm) set(t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.at.IsZero() && !t.Before(a.at) {
		return
	}
	a.at = t
	select {
	case a.c <- struct{}{}:
	default:
	}
}

// next returns the time the alarm is armed for.
func (a *alarm) next() (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at, !a.at.IsZero()
}

// reached disarms the alarm when it is armed for now or earlier: a claim
// at now covers it.
func (a *alarm) reached(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.at.IsZero() && !a.at.After(now) {
		a.at = time.Time{}
	}
}

// forwardDue arms the alarm for every due time the notifier delivers,
// until the engine stops.
func (e *Engine) forwardDue() {
	due := e.notify.Due()
	for {
		select {
		case <-e.bgCtx.Done():
			return
		case t := <-due:
			e.alarm.set(t)
		}
	}
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
