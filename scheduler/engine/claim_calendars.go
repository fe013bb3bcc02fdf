package engine

import (
	"context"
	"sync"

	"sked/scheduler/recurrence"
)

// claimCalendars is the engine's CalendarSource: during a claim (between
// begin and end) it looks the calendars of each collection up once and
// answers the claim's other jobs of that collection from memory, so that
// the planner, which Store.Claim calls with the jobs' rows locked, makes at
// most one look-up per collection and claim instead of one per job.
// Claims may overlap (overlap.go): each begin starts a new memo, which the
// claims under way share from then on (a look-up is never older than the
// begin of the claim that uses it), and the last end forgets it. Outside
// a claim it passes every call through. Safe for concurrent use.
type claimCalendars struct {
	src CalendarSource

	mu sync.Mutex
	// memo holds the claims' look-ups; nil outside a claim.
	memo map[int64]claimCalendarsEntry
	// claims counts the claims between begin and end; memos counts the
	// memos begun, so that a look-up that began before the current memo is
	// not stored in it.
	claims, memos int
}

// claimCalendarsEntry is one memoised look-up.
type claimCalendarsEntry struct {
	cals  recurrence.Calendars
	stamp string
	err   error
}

// newClaimCalendars wraps src; nil stays nil (no calendar source).
func newClaimCalendars(src CalendarSource) *claimCalendars {
	if src == nil {
		return nil
	}
	return &claimCalendars{src: src}
}

// begin starts a claim: look-ups are memoised, afresh, until the last
// claim under way ends.
func (c *claimCalendars) begin() {
	c.mu.Lock()
	c.memo = map[int64]claimCalendarsEntry{}
	c.claims++
	c.memos++
	c.mu.Unlock()
}

// end ends a claim; the last one forgets the look-ups.
func (c *claimCalendars) end() {
	c.mu.Lock()
	c.claims--
	if c.claims == 0 {
		c.memo = nil
	}
	c.mu.Unlock()
}

// CollectionCalendars implements CalendarSource.
func (c *claimCalendars) CollectionCalendars(ctx context.Context, collectionID int64) (recurrence.Calendars, string, error) {
	c.mu.Lock()
	memo, gen := c.memo, c.memos
	if memo != nil {
		if m, ok := memo[collectionID]; ok {
			c.mu.Unlock()
			return m.cals, m.stamp, m.err
		}
	}
	c.mu.Unlock()
	cals, stamp, err := c.src.CollectionCalendars(ctx, collectionID)
	if memo != nil {
		c.mu.Lock()
		if c.memo != nil && c.memos == gen {
			c.memo[collectionID] = claimCalendarsEntry{cals: cals, stamp: stamp, err: err}
		}
		c.mu.Unlock()
	}
	return cals, stamp, err
}

// claimScope brackets one claim of e with the memo of its calendar
// source; call the returned function when the claim ended.
func (e *Engine) claimScope() func() {
	if e.calendars == nil {
		return func() {}
	}
	e.calendars.begin()
	return e.calendars.end
}
