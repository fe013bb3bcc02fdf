package engine

import (
	"fmt"
	"testing"
	"time"

	"sked/models/jobdef"
)

// TestEverySecondsRuns: a job of frequency second with interval 10 runs
// every 10 seconds under the fake clock, each occurrence once, at its
// time, and not in between.
func TestEverySecondsRuns(t *testing.T) {
	e := newEnv(t, nil)
	// The collection's quota allows every 10 seconds (its row as the
	// catalog reads it: Prepare checks the quota of the row it is given).
	f, n := string(jobdef.Second), 10
	e.coll.MaxRecurrenceFrequency, e.coll.MaxRecurrenceInterval = &f, &n
	start := e.clock.Now().Truncate(time.Minute).Add(time.Minute)
	id := e.put("every-10s", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"second","interval":10}}`,
		start.UTC().Format(time.RFC3339), e.action("/tick", "")))
	e.clock.Set(start)
	for k := range 6 {
		at := start.Add(time.Duration(k) * 10 * time.Second)
		if k > 0 {
			e.clock.Set(at.Add(-time.Second))
			if n, err := e.engine.runDue(e.ctx); err != nil || n != 0 {
				t.Fatalf("tick %d, a second early: claimed %d (%v)", k, n, err)
			}
			e.clock.Set(at)
		}
		e.drain()
		if got := len(e.target.requests()); got != k+1 {
			t.Fatalf("tick %d: %d requests, want %d", k, got, k+1)
		}
		h := e.history(id)
		if last := h[len(h)-1]; !last.ExpectedExecutionTime.Equal(at) {
			t.Fatalf("tick %d: expected time %s, want %s", k, rfc(last.ExpectedExecutionTime), rfc(at))
		}
		if j := e.job(id); j.NextRunAt == nil || !j.NextRunAt.Equal(at.Add(10*time.Second)) {
			t.Fatalf("tick %d: next run %v, want %s", k, j.NextRunAt, rfc(at.Add(10*time.Second)))
		}
	}
	e.counters(id, 6, 0, 0)
}
