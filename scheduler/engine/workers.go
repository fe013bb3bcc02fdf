package engine

import "sked/models"

// Workers. An attempt runs on a worker goroutine that, once the attempt
// ended, waits for the next one rather than exiting: during a burst the
// goroutines are reused with the stacks they grew in the HTTP client,
// which a new goroutine would grow again by copying (about 4 % of the
// engine's CPU at 2,000 attempts/s). The slots bound the attempts running
// (MaxWorkers); a worker is started only when none is waiting, so the
// pool stays below about twice MaxWorkers goroutines (the running ones and
// those between an attempt's end and their wait). Workers return once the
// claim loops have returned (loopDone): nothing is dispatched after that.

// dispatch takes a slot for the claimed attempt a (the caller reserved
// it: reserveSlots) and runs a on a waiting worker, or on a new one;
// runAttempt gives the slot back.
func (e *Engine) dispatch(a *models.ClaimedAttempt) {
	e.sem <- struct{}{}
	e.inflight.Add(1)
	e.awaiting.Add(1)
	select {
	case e.work <- a:
	default:
		go e.worker(a)
	}
}

// worker runs a, then the attempts dispatched to it, until the loops
// returned.
func (e *Engine) worker(a *models.ClaimedAttempt) {
	for {
		e.runAttempt(a)
		select {
		case a = <-e.work:
		case <-e.loopDone:
			return
		}
	}
}

// runAttempt runs the claimed attempt a and hands its outcome to the
// writers (an attempt interrupted by Stop is released instead); it frees
// a's slot when done.
func (e *Engine) runAttempt(a *models.ClaimedAttempt) {
	defer func() {
		<-e.sem
		e.inflight.Done()
		for _, c := range [...]chan struct{}{e.slotFreed, e.overlapFreed} {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}()
	o := e.execute(e.execCtx, a)
	if e.crashed.Load() {
		e.awaiting.Add(-1)
		return
	}
	if !o.Succeeded && e.execCtx.Err() != nil {
		e.awaiting.Add(-1)
		// Interrupted by Stop: released, not failed.
		e.releaseMu.Lock()
		e.released = append(e.released, a.ID)
		e.releaseMu.Unlock()
		return
	}
	e.results <- o
}
