package engine

import (
	"testing"
	"testing/synctest"
	"time"
)

// burstRun starts an engine with overlap claims at once on a memStore
// holding n attempts due now, whose claims take rowCost per attempt asked
// for, and returns when the last attempt started (after the first claim
// began), the most claims under way at once and the attempts started.
func burstRun(t *testing.T, overlap, workers, n int, rowCost time.Duration) (last time.Duration, most, started int) {
	t.Helper()
	store := &memStore{rowCost: rowCost}
	t0 := time.Now()
	for range n {
		store.add(t0)
	}
	x := &timedExecutor{}
	startMem(t, store, Config{MaxWorkers: workers, ClaimOverlap: overlap}, x)
	time.Sleep(time.Minute)
	synctest.Wait()
	starts := x.started()
	for _, s := range starts {
		last = max(last, s.Sub(t0))
	}
	store.mu.Lock()
	most = store.maxInClaim
	store.mu.Unlock()
	return last, most, len(starts)
}

// TestOverlappingClaimsDrainABurstSooner: 2,000 attempts due at once, 100
// workers, claims that take 0.5 ms per attempt asked for: one claim at a
// time starts the last attempt after twenty claims of 100 (1 s); with
// ClaimOverlap 2 the loop claims the first 200 alone (100 ms), then two
// claims of 50 run side by side (never more) and start the other 1,800 in
// about 450 ms: the last attempt starts in well under two thirds of the
// time. Every attempt starts once either way.
func TestOverlappingClaimsDrainABurstSooner(t *testing.T) {
	var one, two time.Duration
	synctest.Test(t, func(t *testing.T) {
		last, most, started := burstRun(t, 1, 100, 2000, 500*time.Microsecond)
		if started != 2000 || most != 1 {
			t.Errorf("one claim at a time: %d attempts started, %d claims at once; want 2,000 and 1", started, most)
		}
		one = last
	})
	synctest.Test(t, func(t *testing.T) {
		last, most, started := burstRun(t, 2, 100, 2000, 500*time.Microsecond)
		if started != 2000 || most != 2 {
			t.Errorf("overlapping claims: %d attempts started, %d claims at once; want 2,000 and 2", started, most)
		}
		two = last
	})
	if one < time.Second || two > one*65/100 {
		t.Errorf("the burst's last attempt started after %s one claim at a time and %s with two at once; want at least 1s and at most 65%% of it", one, two)
	}
	t.Logf("last start: %s one claim at a time, %s overlapping", one, two)
}

// TestOverlappingClaimsLeaveAShortBurstToTheLoop: 150 attempts due at
// once and 100 workers: two claims drain them, and the overlap loop does
// not join (smaller claims would cost more per attempt and start them no
// sooner).
func TestOverlappingClaimsLeaveAShortBurstToTheLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, most, started := burstRun(t, 2, 100, 150, 500*time.Microsecond)
		if started != 150 || most != 1 {
			t.Errorf("%d attempts started, %d claims at once; want 150 and 1", started, most)
		}
	})
}

// TestOverlappingClaimsAddNoClaimOutsideABurst: attempts due one at a
// time, every 10 s for 10 minutes, never fill the workers: the engine
// makes as many claims with ClaimOverlap 2 as with 1 (the overlap loops
// wait), and starts each attempt on time.
func TestOverlappingClaimsAddNoClaimOutsideABurst(t *testing.T) {
	claims := map[int]int{}
	for _, overlap := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			store := &memStore{}
			t0 := time.Now()
			for i := range 60 {
				store.add(t0.Add(time.Duration(i+1) * 10 * time.Second))
			}
			x := &timedExecutor{}
			startMem(t, store, Config{MaxWorkers: 8, ClaimOverlap: overlap}, x)
			time.Sleep(11 * time.Minute)
			synctest.Wait()
			store.mu.Lock()
			defer store.mu.Unlock()
			claims[overlap] = len(store.claims)
			if store.maxInClaim != 1 {
				t.Errorf("overlap %d: %d claims at once, want 1", overlap, store.maxInClaim)
			}
			for i, l := range store.starts {
				if l != 0 {
					t.Errorf("overlap %d: attempt %d started %s late", overlap, i, l)
				}
			}
			if len(store.starts) != 60 {
				t.Errorf("overlap %d: %d attempts started, want 60", overlap, len(store.starts))
			}
		})
	}
	if claims[1] != claims[2] {
		t.Errorf("claims over 11 minutes: %d one at a time, %d with overlap 2; want the same", claims[1], claims[2])
	}
}
