package engine

// The workers' slots: e.sem holds a token per attempt running (capacity
// Config.MaxWorkers). A claim reserves the free slots it asks for before
// it runs and releases the reservation once it has dispatched its
// attempts (each of which took a token meanwhile), so that claims that
// overlap (overlap.go) never count the same free slot twice and a
// dispatch never waits for a token.

// reserveSlots reserves up to limit of the slots that are neither taken
// nor reserved and returns how many (0 when none is free). The caller
// releases them with releaseSlots once its claim has dispatched its
// attempts.
func (e *Engine) reserveSlots(limit int) int {
	e.slotMu.Lock()
	defer e.slotMu.Unlock()
	n := min(limit, e.unreserved())
	e.reserved += n
	return n
}

// releaseSlots ends a reservation of n slots made by reserveSlots.
func (e *Engine) releaseSlots(n int) {
	e.slotMu.Lock()
	e.reserved -= n
	e.slotMu.Unlock()
}

// burstShare is the most slots one claim reserves during a burst, when
// Config.ClaimOverlap claims run at once: an equal share of the workers
// (rounded up), so that the claims under way split the burst instead of
// one taking every worker freed and the others none.
func (e *Engine) burstShare() int {
	return (cap(e.sem) + e.cfg.ClaimOverlap - 1) / e.cfg.ClaimOverlap
}

// freeSlots returns how many slots are neither taken nor reserved. While
// a claim dispatches, a slot it reserved and took counts twice, so the
// figure is at most the true one.
func (e *Engine) freeSlots() int {
	e.slotMu.Lock()
	defer e.slotMu.Unlock()
	return e.unreserved()
}

// unreserved is freeSlots' figure; e.slotMu is held.
func (e *Engine) unreserved() int { return max(0, cap(e.sem)-len(e.sem)-e.reserved) }
