package engine

import (
	"sync"
	"time"
)

// Overlapping claims. One claim of 256 attempts, with the results that
// ride it, takes tens of milliseconds, most of them in PostgreSQL, and a
// single loop claims one batch at a time: during a burst (many jobs due
// at the same second) the workers it starts finish long before its next
// claim ends, and the burst drains at one claim's pace while a core
// waits. Once the loop's claims in a row that took every free worker have
// started overlapAfter times MaxWorkers attempts, up to
// Config.ClaimOverlap−1 overlap loops claim beside it, and every claim
// takes at most an equal share of the workers (burstShare), so that the
// claims run side by side rather than one taking every worker freed while
// the other waits. The database keeps them apart as it keeps engines
// apart (SKIP LOCKED, the occurrence's unique key); the slots (slots.go)
// keep them from counting a free worker twice. Outside a burst the
// overlap loops wait: an idle engine makes no more transactions than with
// one loop.

// overlapAfter is how many times MaxWorkers the loop's claims in a row
// that took every free worker must have started before the overlap loops
// join: a burst that two full claims drain (500 jobs due at one second,
// 256 workers) is left to the loop, since smaller claims would cost more
// per attempt and start them no sooner (BENCHMARKS.md).
const overlapAfter = 2

// claimBurst tells the overlap loops that claims of the loop keep taking
// every free worker (more is due). The zero value is not usable;
// newClaimBurst makes one. Safe for concurrent use.
type claimBurst struct {
	mu sync.Mutex
	// next is closed at the loop's next claim that took every free
	// worker, then replaced.
	next chan struct{}
}

// newClaimBurst returns a claimBurst with no filled claim.
func newClaimBurst() *claimBurst { return &claimBurst{next: make(chan struct{})} }

// fill records a claim of the loop that took every free worker, once the
// burst reached overlapAfter times MaxWorkers attempts.
func (b *claimBurst) fill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.next)
	b.next = make(chan struct{})
}

// filled returns a channel closed at the loop's next claim that takes
// every free worker (fill).
func (b *claimBurst) filled() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.next
}

// overlapLoop claims beside the loop during bursts until stopClaiming is
// closed: after each claim of the loop that took every free worker (once
// the burst reached overlapAfter times MaxWorkers attempts), it
// claims the workers free (waiting up to slotWait for a few to free up)
// and goes on while its own claims take every worker they asked for. A
// fill while it claims has it claim again at once.
func (e *Engine) overlapLoop() {
	next := e.burst.filled()
	for {
		select {
		case <-next:
		case <-e.stopClaiming:
			return
		}
		next = e.burst.filled()
		for e.claimBlocked() == nil {
			select {
			case <-e.stopClaiming:
				return
			default:
			}
			if e.freeSlots() < e.minBatch && !e.waitSlots(e.overlapFreed, e.minBatch, slotWait) {
				return
			}
			free := e.reserveSlots(e.burstShare())
			if free < e.minBatch {
				e.releaseSlots(free)
				break // the loop's claim took them: wait for its next
			}
			c, err := e.claim(free)
			e.releaseSlots(free)
			if err != nil {
				e.logger.Warn("engine: overlapping claim failed", "err", err)
				if !e.pause(e.cfg.ErrorBackoff) {
					return
				}
				break
			}
			if c.started < free {
				break // drained: wait for the loop's next full claim
			}
		}
	}
}

// pause waits for d on the engine's clock; it reports false when the
// engine stops claiming. Unlike sleep it takes no wake-up meant for the
// loop (a poke, the alarm).
func (e *Engine) pause(d time.Duration) bool {
	t := e.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-e.stopClaiming:
		return false
	}
}
