package engine

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// concurrentStore is the real store, recording the most claims under way
// at once.
type concurrentStore struct {
	*models.Store
	mu         sync.Mutex
	now, most  int
	claimCount int
}

func (s *concurrentStore) Claim(ctx context.Context, req models.ClaimRequest) (models.ClaimResult, error) {
	s.mu.Lock()
	s.now++
	s.claimCount++
	s.most = max(s.most, s.now)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.now--
		s.mu.Unlock()
	}()
	return s.Store.Claim(ctx, req)
}

// TestOverlappingClaimsRunABurstOnceOnTheDatabase: 200 one-time jobs due
// at the same instant on one engine with 8 workers and ClaimOverlap 2, on
// the real database: claims overlap (two at once, never more), and every
// job's call is received exactly once (by its Idempotency-Key), its one
// history entry Completed and the job completed with one execution.
func TestOverlappingClaimsRunABurstOnceOnTheDatabase(t *testing.T) {
	store := &concurrentStore{Store: testdb.Store(t)}
	coll := newCollection(t, store.Store)
	var mu sync.Mutex
	keys := map[string]int{}
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	})
	const n = 200
	start := time.Now().Add(3 * time.Second).Truncate(time.Second)
	var all []int64
	for i := range n {
		all = append(all, putJob(t, store.Store, coll, fmt.Sprintf("j%03d", i),
			fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(start), httpAction(tg.URL+"/x", ""))))
	}
	e, err := New(allowLoopback(Config{InstanceID: "overlap", MaxWorkers: 8, ClaimOverlap: 2, SafetyPoll: noPoll}),
		Deps{Store: store, Notifier: models.NewListener(store.DSN(), quietLogger()), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2*n)
	e.onFinish = func(_ []models.AttemptOutcome, fs []models.FinishedAttempt) {
		for range fs {
			done <- struct{}{}
		}
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(context.Background())
	timeout := time.After(90 * time.Second)
	for i := range n {
		select {
		case <-done:
		case <-timeout:
			t.Fatalf("%d of %d results after 90 s", i, n)
		}
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkCompletedOnce(t, store.Store, all)
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != n {
		t.Errorf("%d distinct calls received, want %d", len(keys), n)
	}
	for k, c := range keys {
		if c != 1 {
			t.Errorf("call %s received %d times", k, c)
		}
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	t.Logf("%d claims, at most %d at once", store.claimCount, store.most)
	if store.most != 2 {
		t.Errorf("at most %d claims at once, want 2 (ClaimOverlap)", store.most)
	}
}
