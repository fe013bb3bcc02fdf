package engine

import (
	"sked/models"
	"sync"
	"time"
)

// While the claim loop is busy (its last claim filled every free worker:
// more is due and it claims again within slotWait), a writer hands a
// batch of successes to the loop instead of committing it itself: the
// loop's next claim records the batch in its own transaction
// (models.ClaimRequest.Outcomes) before it claims. A burst then costs
// about one commit per claim instead of one per claim plus one per result
// batch, and each claim sees the results just recorded. A batch with a
// failure is written at once (its retry, error action or notification
// must not wait), and so is a batch the loop has not taken within
// rideWait, when a claim has taken what it takes (passed) or when the
// loop turns idle.
const rideWait = 150 * time.Millisecond

// resultRide hands result batches from the writers to the claim loop. The
// zero value is not usable; newResultRide makes one, idle. Safe for
// concurrent use by the writers and the loop.
type resultRide struct {
	// handoff is unbuffered: a batch passes only when the loop takes it
	// while a writer offers it.
	handoff chan []models.AttemptOutcome
	mu      sync.Mutex
	busy    bool
	// idle is closed while the loop is idle; a new one is made when it
	// turns busy.
	idle chan struct{}
	// claimed is closed when a claim of the loop has taken what it takes
	// (passed); a new one is made then.
	claimed chan struct{}
}

// newResultRide returns an idle resultRide.
func newResultRide() *resultRide {
	r := &resultRide{handoff: make(chan []models.AttemptOutcome), idle: make(chan struct{}), claimed: make(chan struct{})}
	close(r.idle)
	return r
}

// passed releases the writers still offering when a claim of the loop
// has taken what it takes: they write their batches themselves rather
// than wait for a later claim.
func (r *resultRide) passed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	close(r.claimed)
	r.claimed = make(chan struct{})
}

// noteClaim notes a claim of the loop that asked for free workers and
// started started attempts: the loop is busy while its claims fill their
// free workers. A claim with no free worker (it only schedules and looks
// for expired leases) changes nothing.
func (r *resultRide) noteClaim(free, started int) {
	if free > 0 {
		r.setBusy(started >= free)
	}
}

// setBusy records whether the loop is busy; false also releases the
// writers waiting in offer.
func (r *resultRide) setBusy(busy bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if busy == r.busy {
		return
	}
	r.busy = busy
	if busy {
		r.idle = make(chan struct{})
	} else {
		close(r.idle)
	}
}

// offer hands batch to the loop if it is busy and takes it within wait;
// it reports whether the loop took it (it then owns batch). False: the
// caller writes it.
func (r *resultRide) offer(batch []models.AttemptOutcome, wait time.Duration) bool {
	r.mu.Lock()
	busy, idle, claimed := r.busy, r.idle, r.claimed
	r.mu.Unlock()
	if !busy {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r.handoff <- batch:
		return true
	case <-idle:
	case <-claimed:
	case <-t.C:
	}
	return false
}

// takeRide returns what the loop's next claim records: the batches the
// writers are offering (taken while it holds fewer than max results),
// then the results waiting in results that no writer has picked up yet,
// up to max in all (a writer's batch may take it past max, to at most
// 2×max). Nil when there is none. The loop calls it before each claim.
func (e *Engine) takeRide(max int) []models.AttemptOutcome {
	r, results := e.ride, e.results
	var got []models.AttemptOutcome
	for len(got) < max {
		select {
		case b := <-r.handoff:
			got = append(got, b...)
			continue
		default:
		}
		break
	}
	for len(got) < max {
		select {
		case o, ok := <-results:
			if !ok {
				return got
			}
			e.awaiting.Add(-1)
			got = append(got, o)
			continue
		default:
		}
		break
	}
	return got
}

// rideable says whether batch may wait for the loop's next claim: it
// holds only successes not under a target limit (a failure's retry,
// error action or notification is written at once, and so is the end of
// an attempt whose slot waiting attempts need).
func (e *Engine) rideable(batch []models.AttemptOutcome) bool {
	for i := range batch {
		if !batch[i].Succeeded || batch[i].Limited || batch[i].Upstream {
			return false // a failure, a target limit's slot, or jobs waiting for its end: at once
		}
	}
	return true
}

// giveBack returns outcomes that a failed claim did not record to the
// writers. It runs counted in inflight, so that Stop closes the results
// only after they are back.
func (e *Engine) giveBack(outcomes []models.AttemptOutcome) {
	e.inflight.Add(1)
	e.awaiting.Add(int64(len(outcomes)))
	go func() {
		defer e.inflight.Done()
		for _, o := range outcomes {
			e.results <- o
		}
	}()
}
