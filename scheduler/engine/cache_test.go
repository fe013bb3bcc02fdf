package engine

import (
	"encoding/json"
	"testing"
)

// cycle looks up jobs ids[0..] in order, rounds times, and returns the
// hit rate of the last round.
func cycle(t *testing.T, c *jobCache, ids []int64, rounds int) float64 {
	t.Helper()
	def := json.RawMessage(`{"action":{"type":"http","request":{"uri":"http://sink","method":"GET"}}}`)
	var h0, m0 int64
	for r := range rounds {
		if r == rounds-1 {
			h0, m0 = c.hits, c.misses
		}
		for _, id := range ids {
			if _, err := c.get(id, def, nil, nil, jobCalendars{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return float64(c.hits-h0) / float64(c.hits-h0+c.misses-m0)
}

func span(from, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(from + i)
	}
	return ids
}

// TestJobCacheKeepsHittingAtAnyJobCount: jobs run in a cycle (minute jobs)
// hit the cache at the rate its size allows (size/jobs), where a plain LRU
// (or clearing it when full) would never hit once there are more jobs than
// it holds; a new working set replaces an old one.
func TestJobCacheKeepsHittingAtAnyJobCount(t *testing.T) {
	for _, tc := range []struct {
		jobs int
		min  float64
	}{{800, 0.999}, {1000, 0.999}, {1200, 0.8}, {2000, 0.45}, {10_000, 0.09}} {
		c := newJobCache(1000)
		got := cycle(t, c, span(1, tc.jobs), 5)
		t.Logf("%d jobs, cache of 1,000: hit rate %.3f", tc.jobs, got)
		if got < tc.min {
			t.Errorf("%d jobs in a cache of 1,000: hit rate %.3f, want at least %.3f", tc.jobs, got, tc.min)
		}
		if n := c.len(); n > 1000 {
			t.Errorf("%d entries in a cache of 1,000", n)
		}
	}
	// The jobs change: the new ones replace the old ones.
	c := newJobCache(1000)
	cycle(t, c, span(1, 1000), 20)
	got := cycle(t, c, span(5000, 1000), 25)
	t.Logf("a new working set of 1,000 jobs after 25 rounds: hit rate %.3f", got)
	if got < 0.95 {
		t.Errorf("a new working set hits %.3f after 25 rounds", got)
	}
	// A changed definition is compiled again, in place.
	def2 := json.RawMessage(`{"action":{"type":"http","request":{"uri":"http://sink/2","method":"GET"}}}`)
	cj, err := c.get(5000, def2, nil, nil, jobCalendars{})
	if err != nil || cj.job.Action.Request.URI != "http://sink/2" {
		t.Fatalf("changed definition: %+v, %v", cj, err)
	}
}

// len returns how many jobs are cached.
func (c *jobCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
