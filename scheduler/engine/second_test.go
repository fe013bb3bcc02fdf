package engine

import (
	"fmt"
	"testing"
	"time"

	"sked/scheduler/catalog/catalogtest"
)

// TestEverySecondsRuns: a job of frequency second with interval 10 runs
// every 10 seconds under the fake clock, each occurrence once, at its
// time, and not in between.
func TestEverySecondsRuns(t *testing.T) {
	e := newEnv(t, nil)
	// A collection whose quota allows every 10 seconds (SPEC §16.5).
	e.coll = catalogtest.Collection(t, e.cat, catalogtest.CollectionOpts{
		Body: `{"properties":{"sku":{"name":"P20Premium"},"quota":{"maxRecurrence":{"frequency":"second","interval":10}}}}`})
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
