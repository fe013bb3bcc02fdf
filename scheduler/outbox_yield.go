package scheduler

import (
	"sync/atomic"
	"time"
)

// notifyHold is how long the outbox waits before it claims while the
// engine's claim loop still has due attempts (a burst): the notifications
// stored meanwhile are then claimed, sent and recorded together, a few
// statements per hold instead of a few per result batch, so that the
// outbox's work competes less with the burst's claims for the database
// and the cores. It adds at most that much to a notification's delivery
// (SPEC §13.3: 1 s from the event to the channel); when the loop turns
// idle the outbox claims at once.
const notifyHold = 200 * time.Millisecond

// burstSignal says whether the engine's claim loop has due attempts left
// (its last claim filled every free worker). The zero value is idle and
// has no idle channel; safe for concurrent use.
type burstSignal struct {
	busy atomic.Bool
	// idle gets a token when the loop turns idle.
	idle chan struct{}
}

// newBurstSignal returns an idle burstSignal.
func newBurstSignal() *burstSignal { return &burstSignal{idle: make(chan struct{}, 1)} }

// claimed notes a claim of the loop that asked for free workers and
// started started attempts: the loop stays busy while its claims fill
// their free workers (more may be due).
func (s *burstSignal) claimed(free, started int) {
	busy := started >= free
	if s.busy.Swap(busy) && !busy {
		select {
		case s.idle <- struct{}{}:
		default:
		}
	}
}

// isBusy reports whether the loop has due attempts left.
func (s *burstSignal) isBusy() bool { return s.busy.Load() }

// engineClaimed tells the outbox of o (nil: sending is off) about a claim
// of the engine's loop that asked for free workers and started started
// attempts (burstSignal.claimed).
func (o *outbox) engineClaimed(free, started int) {
	if o != nil {
		o.burst.claimed(free, started)
	}
}

// yield waits, while the engine's claim loop is busy, for notifyHold or
// until the loop turns idle, whichever comes first; it reports false when
// the outbox stops.
func (o *outbox) yield() bool {
	if !o.burst.isBusy() {
		return true
	}
	t := o.e.clock.NewTimer(notifyHold)
	defer t.Stop()
	select {
	case <-t.C():
	case <-o.burst.idle:
	case <-o.stop:
		return false
	}
	return true
}
