package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// The wake-up tests (SPEC §13.1) on real PostgreSQL with the
// system clock. Every engine runs with a safety poll of an hour, so none of
// them can pass because of it: each attempt must be woken by the timer its
// writer armed, by a notification (carrying the due time for retries and
// error actions) or by the call that made it due. Times are read from the
// history (the engines' clock) except for Run now, which is measured from
// the moment the call returned to the moment the target saw the request.

const noPoll = time.Hour

// woken bounds how long after its cause a woken attempt may start: far
// below noPoll, so that only a wake-up passes, and far above the
// milliseconds a wake-up takes, so that a loaded machine (CI runs the
// packages in parallel) does not fail the test. How soon attempts start
// is measured by BenchmarkEngineLatenessByKind (BENCHMARKS.md), never
// asserted here.
const woken = 2 * time.Second

// wakeTarget answers 500 on paths starting with /fail and 200 elsewhere,
// and reports every request on seen.
func wakeTarget(t *testing.T) *target {
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	tg.seen = make(chan received, 1000)
	return tg
}

// waitHistory waits until job id has n history entries and returns them,
// oldest first.
func waitHistory(t *testing.T, store *models.Store, id int64, n int, within time.Duration) []models.HistoryEntry {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h, err := store.History(context.Background(), models.HistoryQuery{JobID: id, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(h) >= n {
			for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
				h[i], h[j] = h[j], h[i]
			}
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: %d history entries after %s, want %d: %+v", id, len(h), within, n, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPath waits for the target to see a request on path and returns when.
func waitPath(t *testing.T, tg *target, path string, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, r := range tg.requests() {
			if r.Path == path {
				return r.At
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no request on %s within %s", path, within)
	return time.Time{}
}

// gap is how long after entry a ended entry b started.
func gap(a, b models.HistoryEntry) time.Duration { return b.StartTime.Sub(*a.EndTime) }

// checkRetry checks the history of a job that failed once and was retried
// 15 s later.
func checkRetry(t *testing.T, h []models.HistoryEntry) {
	t.Helper()
	wantLines(t, historyLines(h[:2]), "MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1")
	g := gap(h[0], h[1])
	t.Logf("retry started %s after the failed attempt ended (lateness %d ms)", g, *h[1].LatenessMs)
	if g < 14*time.Second || g > 16*time.Second {
		t.Errorf("retry started %s after the failed attempt ended, want 15 s ± 1 s", g)
	}
}

// checkErrorAction checks the history of a job whose main action failed
// without retries and whose error action followed.
func checkErrorAction(t *testing.T, h []models.HistoryEntry) {
	t.Helper()
	wantLines(t, historyLines(h[:2]), "MainAction Failed retry=0 repeat=1", "ErrorAction Completed retry=0 repeat=1")
	g := gap(h[0], h[1])
	t.Logf("error action started %s after the main action ended", g)
	if g < 0 || g >= woken {
		t.Errorf("error action started %s after the main action ended, want woken (under %s)", g, woken)
	}
}

// reEnable creates a disabled minute job whose next occurrence after
// enabling it now is in 4 s, enables it with enable, and checks that this
// occurrence starts on time.
func reEnable(t *testing.T, store *models.Store, coll *models.CollectionRow, tg *target, enable func(j *models.Job) error) {
	t.Helper()
	next := time.Now().Add(5 * time.Second).Truncate(time.Second)
	id := putJob(t, store, coll, "re-enabled", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"state":"disabled","action":%s}`,
		rfc(next.Add(-time.Minute)), httpAction(tg.URL+"/enabled", "")))
	if err := enable(jobByID(t, store, id)); err != nil {
		t.Fatal(err)
	}
	h := waitHistory(t, store, id, 1, 20*time.Second)
	t.Logf("re-enabled job's occurrence started %d ms after its time", *h[0].LatenessMs)
	if !h[0].ExpectedExecutionTime.Equal(next) || *h[0].LatenessMs > 1000 {
		t.Errorf("re-enabled job ran %s expected at %s, %d ms late; want %s within 1 s",
			h[0].Status, rfc(h[0].ExpectedExecutionTime), *h[0].LatenessMs, rfc(next))
	}
}

func TestEveryAttemptWakesTheEngineWithoutTheSafetyPoll(t *testing.T) {
	t.Parallel()
	store := testdb.Store(t)
	coll := newCollection(t, store)
	tg := wakeTarget(t)
	ctx := context.Background()
	e := startLive(t, store, Config{SafetyPoll: noPoll})

	retry := putJob(t, store, coll, "retry", `{"action":`+httpAction(tg.URL+"/fail-retry",
		`"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1}`)+`}`)
	errorAction := putJob(t, store, coll, "error-action", `{"action":`+httpAction(tg.URL+"/fail-main",
		`"retryPolicy":{"retryType":"none"},"errorAction":`+httpAction(tg.URL+"/error", "")+``)+`}`)
	checkErrorAction(t, waitHistory(t, store, errorAction, 2, 10*time.Second))

	far := putJob(t, store, coll, "far", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"year"},"action":%s}`,
		rfc(time.Now().Add(300*24*time.Hour)), httpAction(tg.URL+"/run-now", "")))
	time.Sleep(500 * time.Millisecond) // the engine is asleep again
	if _, err := e.runNow(t, coll, far); err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	d := waitPath(t, tg, "/run-now", 5*time.Second).Sub(returned)
	t.Logf("Run now reached the target %s after the call returned", d)
	if d >= woken {
		t.Errorf("Run now reached the target %s after the call returned, want woken (under %s)", d, woken)
	}

	reEnable(t, store, coll, tg, func(j *models.Job) error { return e.cat.EnableJob(ctx, catalogtest.Actor, coll, j) })
	checkRetry(t, waitHistory(t, store, retry, 2, 30*time.Second))
}

// noRunner is the engine of another instance, which none of the test's
// engines hears of but through the database.
type noRunner struct{}

func (noRunner) Wake() {}

// engineOf returns the engine that holds job id's running attempt.
func engineOf(t *testing.T, store *models.Store, id int64, engines []*live) *live {
	t.Helper()
	att, err := store.Attempts(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range att {
		if a.Status == "running" && a.LeaseOwner != nil {
			for _, e := range engines {
				if e.InstanceID() == *a.LeaseOwner {
					return e
				}
			}
		}
	}
	t.Fatalf("no engine holds an attempt of job %d: %+v", id, att)
	return nil
}

// TestAttemptsStoredByOneEngineWakeTheOthers: three engines. The engine
// that runs a failing attempt stops claiming before it stores the retry
// (then, separately, the error action), so another engine must run it,
// woken only by the notification that carries its due time. Run now and
// re-enabling, called from outside the engines (another instance's API),
// wake the last engine by notification too.
func TestAttemptsStoredByOneEngineWakeTheOthers(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	outside := openStore(t, dsn)
	coll := newCollection(t, outside)
	// The write service of another instance, whose own engine is not
	// among these: only the database's notification wakes them.
	elsewhere := catalog.New(outside, nil).WithRunner(noRunner{})
	ctx := context.Background()
	var mu sync.Mutex
	holds := map[string]chan struct{}{}
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hold := holds[r.URL.Path]
		mu.Unlock()
		if hold != nil {
			<-hold
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range holds {
			select {
			case <-c:
			default:
				close(c)
			}
		}
	})
	engines := make([]*live, 3)
	for i := range engines {
		engines[i] = startLive(t, openStore(t, dsn), Config{InstanceID: fmt.Sprintf("E%d", i), SafetyPoll: noPoll})
	}
	// failOnStoppingEngine creates a job calling path with extra, waits for
	// its first attempt, makes the engine running it stop claiming, and then
	// fails the attempt: the engine records it (storing the next attempt) as
	// it stops.
	failOnStoppingEngine := func(name, path, extra string) int64 {
		hold := make(chan struct{})
		mu.Lock()
		holds[path] = hold
		mu.Unlock()
		id := putJob(t, outside, coll, name, `{"action":`+httpAction(tg.URL+path, extra)+`}`)
		waitPath(t, tg, path, 10*time.Second)
		e := engineOf(t, outside, id, engines)
		stopped := make(chan struct{})
		go func() { e.Stop(ctx); close(stopped) }()
		<-e.loopDone
		// The other engines settle asleep (their safety poll is an hour).
		time.Sleep(time.Second)
		close(hold)
		<-stopped
		return id
	}

	retry := failOnStoppingEngine("retry", "/hold-retry", `"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1}`)
	checkRetry(t, waitHistory(t, outside, retry, 2, 30*time.Second))
	errorAction := failOnStoppingEngine("error-action", "/hold-main",
		`"retryPolicy":{"retryType":"none"},"errorAction":`+httpAction(tg.URL+"/error", ""))
	checkErrorAction(t, waitHistory(t, outside, errorAction, 2, 10*time.Second))

	// Run now from outside the engines.
	far := putJob(t, outside, coll, "far", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"year"},"action":%s}`,
		rfc(time.Now().Add(300*24*time.Hour)), httpAction(tg.URL+"/run-now", "")))
	time.Sleep(500 * time.Millisecond)
	if _, err := elsewhere.RunNow(ctx, catalogtest.Actor, coll, jobByID(t, outside, far)); err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	d := waitPath(t, tg, "/run-now", 5*time.Second).Sub(returned)
	t.Logf("Run now reached the target %s after the call returned", d)
	if d >= woken {
		t.Errorf("Run now reached the target %s after the call returned, want woken (under %s)", d, woken)
	}
	reEnable(t, outside, coll, tg, func(j *models.Job) error { return elsewhere.EnableJob(ctx, catalogtest.Actor, coll, j) })
}
