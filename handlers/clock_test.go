package handlers_test

import (
	"sync"
	"time"
)

// testStart is where every test clock starts: 2026-11-21 12:00 UTC, a
// Saturday. Tests that expect dates (month view, feeds, pages) count from
// it.
var testStart = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// fakeClock is the one clock of the handlers tests: handlers.Deps.Now
// (sign-in throttle, session expiry, pages' "now") and the fake engine's
// RunNow read it, and tests move it with Advance. It stands still
// otherwise. It is safe for concurrent use: the server's goroutines read
// it while a test advances it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock returns a clock standing at testStart.
func newFakeClock() *fakeClock { return &fakeClock{now: testStart} }

// Now is the clock's time.
func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock d forward (backward for a negative d).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
