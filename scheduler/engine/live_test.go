package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// openStore opens another Store on dsn (another instance's connections).
func openStore(t testing.TB, dsn string) *models.Store {
	t.Helper()
	return testdb.Open(t, dsn, models.Options{PasswordCost: bcrypt.MinCost})
}

// live is a started engine with a channel of its written results, and a
// write service that runs jobs now through it.
type live struct {
	*Engine
	done chan models.FinishedAttempt
	cat  *catalog.Catalog
}

// startLive starts an engine on store with the system clock and LISTEN/
// NOTIFY; it is stopped when the test ends (if the test did not). Its
// safety poll is an hour unless cfg sets one: no test passes because of it.
func startLive(t testing.TB, store *models.Store, cfg Config) *live {
	t.Helper()
	return startLiveWith(t, store, cfg, Deps{Notifier: models.NewListener(store.DSN(), quietLogger())})
}

// startLiveWith is startLive with deps's Notifier, Clock and Metrics (the
// rest is startLive's): a nil Notifier makes an engine that does not
// listen (it polls every SafetyPoll).
func startLiveWith(t testing.TB, store *models.Store, cfg Config, deps Deps) *live {
	t.Helper()
	if cfg.InstanceID == "" {
		cfg.InstanceID = fmt.Sprintf("live-%p", store)
	}
	if cfg.SafetyPoll == 0 {
		cfg.SafetyPoll = noPoll
	}
	e, err := New(allowLoopback(cfg), Deps{Store: store, Notifier: deps.Notifier, Logger: quietLogger(),
		Clock: deps.Clock, Metrics: deps.Metrics})
	if err != nil {
		t.Fatal(err)
	}
	l := &live{Engine: e, done: make(chan models.FinishedAttempt, 100000), cat: catalog.New(store, nil).WithRunner(e)}
	e.onFinish = func(_ []models.AttemptOutcome, done []models.FinishedAttempt) {
		for _, d := range done {
			select {
			case l.done <- d:
			default: // benchmarks do not read them
			}
		}
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	return l
}

// next waits for the next written result.
func (l *live) next(t testing.TB) models.FinishedAttempt {
	t.Helper()
	select {
	case d := <-l.done:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt finished within 30 s")
	}
	panic("unreachable")
}

// runNow runs job id of coll now through the engine's write service and
// returns the attempt's id.
func (l *live) runNow(t testing.TB, coll *models.CollectionRow, id int64) (int64, error) {
	t.Helper()
	return l.cat.RunNow(context.Background(), catalogtest.Actor, coll, jobByID(t, l.store, id))
}

// jobByID returns job id of store.
func jobByID(t testing.TB, store Store, id int64) *models.Job {
	t.Helper()
	j, err := store.JobByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func httpAction(url, extra string) string {
	a := fmt.Sprintf(`{"type":"http","request":{"uri":%q,"method":"GET"}`, url)
	if extra != "" {
		a += "," + extra
	}
	return a + "}"
}

func TestLiveEngineWakesOnNotifyTimerAndRunNowWithoutLeaks(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store)
	tg := newTarget(t, nil)
	ctx := context.Background()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// A safety poll of an hour: every wake-up below comes from a
	// notification, the due-time timer or RunNow.
	e := startLive(t, store, Config{SafetyPoll: time.Hour})
	id := putJob(t, store, coll, "created", `{"action":`+httpAction(tg.URL+"/created", "")+`}`)
	if d := e.next(t); d.JobID != id || !d.Recorded {
		t.Fatalf("first result %+v", d)
	}
	start := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
	later := putJob(t, store, coll, "later", fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(start), httpAction(tg.URL+"/later", "")))
	if d := e.next(t); d.JobID != later {
		t.Fatalf("second result %+v", d)
	}
	h, _ := store.History(ctx, models.HistoryQuery{JobID: later, Limit: 10})
	if len(h) != 1 || !h[0].ExpectedExecutionTime.Equal(start) {
		t.Fatalf("history %+v", h)
	}
	t.Logf("started %d ms after its time", *h[0].LatenessMs)
	far := putJob(t, store, coll, "far", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"year"},"action":%s}`,
		rfc(time.Now().Add(300*24*time.Hour)), httpAction(tg.URL+"/far", "")))
	if _, err := e.runNow(t, coll, far); err != nil {
		t.Fatal(err)
	}
	if d := e.next(t); d.JobID != far {
		t.Fatalf("run now result %+v", d)
	}
	paths := []string{}
	for _, r := range tg.requests() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/created /later /far" {
		t.Errorf("requests %v", paths)
	}
	if err := e.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	tg.Close()
}

func TestJobDisabledOrDeletedWhileItsAttemptRuns(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store)
	ctx := context.Background()
	release := make(chan struct{})
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.WriteHeader(http.StatusInternalServerError)
	})
	tg.seen = make(chan received, 10)
	e := startLive(t, store, Config{})
	retry := `"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":3}`

	// Disabled: the running attempt finishes and is recorded; no retry.
	dis := putJob(t, store, coll, "dis", `{"action":`+httpAction(tg.URL+"/dis", retry)+`}`)
	<-tg.seen
	if err := e.cat.DisableJob(ctx, catalogtest.Actor, coll, jobByID(t, store, dis)); err != nil {
		t.Fatal(err)
	}
	release <- struct{}{}
	if d := e.next(t); d.JobID != dis || !d.Recorded || d.NextStored {
		t.Fatalf("result after disabling %+v", d)
	}
	h, _ := store.History(ctx, models.HistoryQuery{JobID: dis, Limit: 10})
	if len(h) != 1 || h[0].Status != models.StatusFailed {
		t.Errorf("history %+v", h)
	}
	att, _ := store.Attempts(ctx, dis)
	if len(att) != 0 {
		t.Errorf("open attempts %+v: want none (the failed attempt is its history entry; no retry)", att)
	}
	if j, _ := store.JobByID(ctx, dis); j.State != jobdef.Disabled || j.ExecutionCount != 1 || j.FailureCount != 1 {
		t.Errorf("job %+v", j)
	}

	// Deleted: the request finishes; nothing is recorded.
	del := putJob(t, store, coll, "del", `{"action":`+httpAction(tg.URL+"/del", retry)+`}`)
	<-tg.seen
	if err := e.cat.DeleteJob(ctx, catalogtest.Actor, coll, "del"); err != nil {
		t.Fatal(err)
	}
	release <- struct{}{}
	if d := e.next(t); d.Recorded {
		t.Fatalf("result of a deleted job was recorded: %+v", d)
	}
	if _, err := store.JobByID(ctx, del); err == nil {
		t.Error("deleted job came back")
	}
}

func TestCrashedEngineAttemptIsInterruptedAndRetriedByAnother(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	storeA, storeB := openStore(t, dsn), openStore(t, dsn)
	coll := newCollection(t, storeA)
	ctx := context.Background()
	first := true
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			<-r.Context().Done() // hangs until the caller goes away
		}
	})
	tg.seen = make(chan received, 10)
	a := startLive(t, storeA, Config{InstanceID: "A", LeaseMargin: time.Second})
	id := putJob(t, storeA, coll, "crash", `{"action":`+httpAction(tg.URL+"/c",
		`"timeout":"PT2S","retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":2}`)+`}`)
	<-tg.seen
	// A crashes mid-attempt: nothing it still has is written.
	a.crashed.Store(true)
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	a.Stop(stopCtx)
	cancel()
	att, _ := storeB.Attempts(ctx, id)
	if len(att) != 1 || att[0].Status != "running" || *att[0].LeaseOwner != "A" {
		t.Fatalf("after the crash: %+v", att)
	}
	b := startLive(t, storeB, Config{InstanceID: "B", LeaseMargin: time.Second})
	if d := b.next(t); d.JobID != id || d.Attempt != 1 || !d.NextStored {
		t.Fatalf("B's first result %+v: want attempt 1 recorded interrupted with a retry", d)
	}
	if d := b.next(t); d.JobID != id || d.Attempt != 2 {
		t.Fatalf("B's second result %+v", d)
	}
	h, _ := storeB.History(ctx, models.HistoryQuery{JobID: id, Limit: 10})
	if len(h) != 2 || h[1].Status != models.StatusFailed || !strings.Contains(h[1].Message, "interrupted") || h[0].Status != models.StatusCompleted {
		t.Fatalf("history %+v", h)
	}
	if j, _ := storeB.JobByID(ctx, id); j.State != jobdef.Completed || j.ExecutionCount != 2 || j.FailureCount != 1 {
		t.Errorf("job %+v", j)
	}
	if got := tg.requests(); len(got) != 2 || got[0].Key != got[1].Key || got[0].Tag == got[1].Tag {
		t.Errorf("requests %+v: want two attempts of one occurrence", got)
	}
}

func TestGracefulStopReleasesInterruptedAttemptsToAnotherEngine(t *testing.T) {
	dsn := testdb.DSN(t)
	storeA, storeB := openStore(t, dsn), openStore(t, dsn)
	coll := newCollection(t, storeA)
	ctx := context.Background()
	first := true
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			<-r.Context().Done()
		}
	})
	tg.seen = make(chan received, 10)
	a := startLive(t, storeA, Config{InstanceID: "A"})
	id := putJob(t, storeA, coll, "release", `{"action":`+httpAction(tg.URL+"/r", `"retryPolicy":{"retryType":"none"}`)+`}`)
	<-tg.seen
	stopCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	a.Stop(stopCtx)
	cancel()
	att, _ := storeB.Attempts(ctx, id)
	if len(att) != 1 || att[0].Status != "pending" || att[0].Attempt != 1 || att[0].LeaseOwner != nil {
		t.Fatalf("after a graceful stop: %+v; want the attempt released", att)
	}
	if h, _ := storeB.History(ctx, models.HistoryQuery{JobID: id, Limit: 10}); len(h) != 0 {
		t.Fatalf("history after the release: %+v", h)
	}
	b := startLive(t, storeB, Config{InstanceID: "B"})
	if d := b.next(t); d.JobID != id || d.Attempt != 1 || !d.Recorded {
		t.Fatalf("B's result %+v", d)
	}
	h, _ := storeB.History(ctx, models.HistoryQuery{JobID: id, Limit: 10})
	if len(h) != 1 || h[0].Status != models.StatusCompleted || h[0].RetryCount != 0 {
		t.Fatalf("history %+v", h)
	}
	if j, _ := storeB.JobByID(ctx, id); j.State != jobdef.Completed || j.ExecutionCount != 1 || j.FailureCount != 0 {
		t.Errorf("job %+v", j)
	}
	if got := tg.requests(); len(got) != 2 || got[0].Key != got[1].Key || got[0].Tag != got[1].Tag {
		t.Errorf("requests %+v: want the released attempt sent again with the same key and tag", got)
	}
}
