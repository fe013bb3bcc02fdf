// Package clocktest is the test clock of the scheduler's tests: a clock
// moved by hand, safe for concurrent use, whose timers never fire (tests
// that use it drive the engine step by step).
package clocktest

import (
	"sync"
	"time"
)

// Clock is a clock moved by hand. The zero value reads the zero time; it
// is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock that reads now.
func New(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Add moves the clock by d and returns its new time.
func (c *Clock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// NeverTimer is a timer that never fires: what the timers of a clock moved
// by hand are (engine.Timer).
type NeverTimer struct{}

// C returns nil: a channel that never delivers.
func (NeverTimer) C() <-chan time.Time { return nil }

// Stop reports true: the timer was stopped before firing.
func (NeverTimer) Stop() bool { return true }
