package clocktest

import (
	"sync"
	"testing"
	"time"
)

// TestClockConcurrent moves the clock from many goroutines (run with -race).
func TestClockConcurrent(t *testing.T) {
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	c := New(start)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Add(time.Second)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got := c.Now().Sub(start); got != 800*time.Second {
		t.Errorf("moved %s, want 800s", got)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Errorf("Set: %s", c.Now())
	}
}
