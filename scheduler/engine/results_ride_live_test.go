package engine

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// countingStore is the real store, counting the transactions that record
// results: its own (FinishAttempts) and the claims that carry some.
type countingStore struct {
	*models.Store
	finishes, rideClaims, rode atomic.Int64
}

func (s *countingStore) FinishAttempts(ctx context.Context, o []models.AttemptOutcome) ([]models.FinishedAttempt, error) {
	s.finishes.Add(1)
	return s.Store.FinishAttempts(ctx, o)
}

func (s *countingStore) Claim(ctx context.Context, req models.ClaimRequest) (models.ClaimResult, error) {
	if len(req.Outcomes) > 0 {
		s.rideClaims.Add(1)
		s.rode.Add(int64(len(req.Outcomes)))
	}
	return s.Store.Claim(ctx, req)
}

// TestBusyEngineRecordsResultsInItsClaims: 60 one-time jobs due at the
// same instant on an engine with 4 workers, each call taking 20 ms: the
// claim loop stays busy (every claim fills its free workers), so the
// writers hand their batches of successes to its claims. Every result is
// recorded once (history, counters, the job completed), claims carry some
// of them, and fewer transactions record results than there are results.
// How many ride depends on the machine's timing (a loaded machine lets a
// writer's batch grow instead: 29 of 60 rode in one CI run, 3 claims and 1
// transaction of its own for the 60), so the test asserts the mechanism,
// not a share.
func TestBusyEngineRecordsResultsInItsClaims(t *testing.T) {
	store := &countingStore{Store: testdb.Store(t)}
	coll := newCollection(t, store.Store)
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) })
	const n = 60
	start := time.Now().Add(3 * time.Second).Truncate(time.Second)
	ids, all := map[int64]bool{}, []int64{}
	for i := range n {
		all = append(all, 0)
		all[i] = putJob(t, store.Store, coll, fmt.Sprintf("j%02d", i),
			fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(start), httpAction(tg.URL+"/x", "")))
		ids[all[i]] = true
	}
	e, err := New(allowLoopback(Config{InstanceID: "ride", MaxWorkers: 4, SafetyPoll: noPoll}),
		Deps{Store: store, Notifier: models.NewListener(store.DSN(), quietLogger()), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan models.FinishedAttempt, 2*n)
	e.onFinish = func(_ []models.AttemptOutcome, fs []models.FinishedAttempt) {
		for _, f := range fs {
			done <- f
		}
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(context.Background())
	timeout := time.After(60 * time.Second)
	for range n {
		select {
		case f := <-done:
			if !f.Recorded || !ids[f.JobID] {
				t.Fatalf("result %+v", f)
			}
			delete(ids, f.JobID)
		case <-timeout:
			t.Fatalf("%d of %d results after 60 s", n-len(ids), n)
		}
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkCompletedOnce(t, store.Store, all)
	rode, claims, finishes := store.rode.Load(), store.rideClaims.Load(), store.finishes.Load()
	t.Logf("%d results: %d recorded by %d claims, the rest by %d transactions of their own", n, rode, claims, finishes)
	if rode == 0 || claims == 0 {
		t.Errorf("no claim recorded results (%d results in %d claims)", rode, claims)
	}
	if claims+finishes >= n {
		t.Errorf("%d transactions recorded %d results", claims+finishes, n)
	}
}
