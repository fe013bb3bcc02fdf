package engine

import (
	"sync/atomic"
	"time"
)

// While the engine's claim loop still has due attempts (a burst), the
// outbox yields to it: it leaves each new notification for notifyHold
// after its event (ClaimParams.DueBy) and claims at most once per
// busyClaimGap, so that its claims, sends and records (and the receipt,
// for a receiver on the same machine) compete less with the burst's
// claims for the database and the cores, and what it sends meanwhile is
// claimed and recorded in a few large batches. As soon as the loop turns
// idle it claims everything due. notifyHold + busyClaimGap bound the
// extra delay, well within SPEC §13.3's 1 s from the event to the channel
// for a burst that the engine drains in about a second.
const (
	notifyHold   = 400 * time.Millisecond
	busyClaimGap = 100 * time.Millisecond
)

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

// yield waits, while the engine's claim loop is busy, for busyClaimGap or
// until the loop turns idle, whichever comes first; it reports false when
// the outbox stops.
func (o *outbox) yield() bool {
	if !o.burst.isBusy() {
		return true
	}
	t := o.clock.NewTimer(busyClaimGap)
	defer t.Stop()
	select {
	case <-t.C():
	case <-o.burst.idle:
	case <-o.stop:
		return false
	}
	return true
}

// dueBy returns the latest due time of the pending notifications that
// the outbox claims at now: now, or now−notifyHold while the engine's
// claim loop is busy.
func (o *outbox) dueBy(now time.Time) time.Time {
	if o.burst.isBusy() {
		return now.Add(-notifyHold)
	}
	return now
}

// nextAt returns when the outbox is to claim for a notification due at
// at: then, or notifyHold later while the engine's claim loop is busy.
func (o *outbox) nextAt(at time.Time) time.Time {
	if o.burst.isBusy() {
		return at.Add(notifyHold)
	}
	return at
}
