package handlers_test

import (
	"time"

	"sked/scheduler/clocktest"
)

// testStart is where every test clock starts: 2026-11-21 12:00 UTC, a
// Saturday. Tests that expect dates (month view, feeds, pages) count from
// it.
var testStart = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// fakeClock is the one test clock (clocktest.Clock) as the handlers tests
// use it: handlers.Deps.Now (sign-in throttle, session expiry, pages'
// "now") and the fake engine's RunNow read it, and tests move it with
// Advance. It stands still otherwise and is safe for concurrent use.
type fakeClock struct{ *clocktest.Clock }

// newFakeClock returns a clock standing at testStart.
func newFakeClock() *fakeClock { return &fakeClock{clocktest.New(testStart)} }

// Advance moves the clock d forward (backward for a negative d).
func (c *fakeClock) Advance(d time.Duration) { c.Add(d) }
