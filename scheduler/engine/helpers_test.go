package engine

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
	"sked/scheduler/clocktest"
)

// liveParallel is how many parallel tests the package runs at once when
// -parallel is not given (the default is GOMAXPROCS). Its parallel tests
// are the live ones: three engines on a real database, mostly waiting
// for real time to pass (heartbeats, leases, minute jobs), so a third at
// once keeps the package's time near its longest test's
// (TestExactlyOnceAcrossThreeEngines, about 3.5 minutes) on two cores.
const liveParallel = 3

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < liveParallel {
		if err := flag.Set("test.parallel", strconv.Itoa(liveParallel)); err != nil {
			panic(err)
		}
	}
	testdb.Main(m)
}

// fakeClock is the shared test clock (clocktest.Clock) as an engine
// Clock. Its timers never fire: tests that use it drive the engine with
// runDue.
type fakeClock struct{ *clocktest.Clock }

// newFakeClock returns a fakeClock that reads now.
func newFakeClock(now time.Time) *fakeClock { return &fakeClock{clocktest.New(now)} }

func (c *fakeClock) NewTimer(time.Duration) Timer { return clocktest.NeverTimer{} }

// received is one request seen by a target.
type received struct {
	Path, Key, Tag, JobID, Expected string
	At                              time.Time
}

// target is a real HTTP server that records what it receives and answers
// with handle (200 "ok" when nil).
type target struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	handle func(w http.ResponseWriter, r *http.Request)
	seen   chan received // when not nil, every request is also sent here
}

func newTarget(t testing.TB, handle func(w http.ResponseWriter, r *http.Request)) *target {
	tg := &target{handle: handle}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rec := received{Path: r.URL.Path, Key: r.Header.Get("Idempotency-Key"), Tag: r.Header.Get("x-ms-scheduler-execution-tag"),
			JobID: r.Header.Get("x-ms-scheduler-jobid"), Expected: r.Header.Get("x-ms-scheduler-expected-execution-time"), At: time.Now()}
		tg.mu.Lock()
		tg.got = append(tg.got, rec)
		seen := tg.seen
		tg.mu.Unlock()
		if seen != nil {
			seen <- rec
		}
		if tg.handle != nil {
			tg.handle(w, r)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) requests() []received {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]received(nil), tg.got...)
}

// loopbackTargets are the networks of the tests' targets (httptest servers,
// emulators), which the SSRF guard refuses unless allowed.
var loopbackTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// allowLoopback returns cfg letting actions reach loopback targets, unless
// cfg has an allow list of its own.
func allowLoopback(cfg Config) Config {
	if cfg.Action.AllowTargets == nil {
		cfg.Action.AllowTargets = loopbackTargets
	}
	return cfg
}

// env is one test's database, collection, fake clock, target and engine,
// and the write service that makes its jobs (at the fake clock, running
// them now through the engine).
type env struct {
	t      *testing.T
	ctx    context.Context
	store  *models.Store
	coll   *models.CollectionRow
	clock  *fakeClock
	engine *Engine
	cat    *catalog.Catalog
	target *target
}

// newCollection creates a collection of the default workspace through
// the write service (catalogtest).
func newCollection(t testing.TB, store *models.Store) *models.CollectionRow {
	t.Helper()
	return catalogtest.Collection(t, catalog.New(store, nil), catalogtest.CollectionOpts{})
}

// putJob creates job name of coll with definition def through the write
// service, at the real clock, and returns its id.
func putJob(t testing.TB, store *models.Store, coll *models.CollectionRow, name, def string) int64 {
	t.Helper()
	return catalogtest.Job(t, catalog.New(store, nil), coll, catalogtest.JobOpts{Name: name, Definition: def}).ID
}

func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.Default()
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newEnv returns an env whose clock starts a few seconds ahead of the real
// clock, on a second boundary.
func newEnv(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *env {
	t.Helper()
	store := testdb.Store(t)
	e := &env{t: t, ctx: context.Background(), store: store, coll: newCollection(t, store),
		clock: newFakeClock(time.Now().Add(5 * time.Second).Truncate(time.Second)), target: newTarget(t, handle)}
	eng, err := New(allowLoopback(Config{InstanceID: "test-engine", MaxWorkers: 16}), Deps{Store: store, Clock: e.clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.useEngine(eng)
	return e
}

// useEngine makes eng the env's engine, and the write service's runner.
func (e *env) useEngine(eng *Engine) {
	e.engine = eng
	e.cat = catalog.New(e.store, e.clock.Now).WithRunner(eng)
}

// action returns an http action JSON calling the env's target at path.
func (e *env) action(path, extra string) string {
	a := fmt.Sprintf(`{"type":"Http","request":{"uri":%q,"method":"POST","body":"hello"}`, e.target.URL+path)
	if extra != "" {
		a += "," + extra
	}
	return a + "}"
}

// put creates job name with the given definition through the write
// service (its first run planned at the env's clock) and returns its id.
func (e *env) put(name, def string) int64 {
	e.t.Helper()
	return catalogtest.Job(e.t, e.cat, e.coll, catalogtest.JobOpts{Name: name, Definition: def}).ID
}

// runNow runs job id now through the write service and returns the
// attempt's id.
func (e *env) runNow(id int64) (int64, error) {
	e.t.Helper()
	return e.cat.RunNow(e.ctx, catalogtest.Actor, e.coll, e.job(id))
}

// setEnabled enables or disables job id through the write service.
func (e *env) setEnabled(id int64, enabled bool) error {
	e.t.Helper()
	if enabled {
		return e.cat.EnableJob(e.ctx, catalogtest.Actor, e.coll, e.job(id))
	}
	return e.cat.DisableJob(e.ctx, catalogtest.Actor, e.coll, e.job(id))
}

// setCollectionState sets the state of the env's collection through the
// write service.
func (e *env) setCollectionState(state models.CollectionState) error {
	e.t.Helper()
	ref := models.CollectionRef{WorkspaceID: e.coll.WorkspaceID, ResourceGroup: e.coll.ResourceGroup, Name: e.coll.Name}
	_, err := e.cat.SetCollectionState(e.ctx, catalogtest.Actor, ref, state)
	return err
}

// drain runs everything due at the clock's now, repeatedly, until nothing
// is left.
func (e *env) drain() {
	e.t.Helper()
	for range 100 {
		n, err := e.engine.runDue(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	e.t.Fatal("drain: still claiming after 100 rounds")
}

func (e *env) job(id int64) *models.Job {
	e.t.Helper()
	j, err := e.store.JobByID(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// history returns the job's history, oldest first.
func (e *env) history(id int64) []models.HistoryEntry {
	e.t.Helper()
	h, err := e.store.History(e.ctx, models.HistoryQuery{JobID: id, Limit: 10000})
	if err != nil {
		e.t.Fatal(err)
	}
	for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
		h[i], h[j] = h[j], h[i]
	}
	return h
}

func (e *env) attempts(id int64) []models.Attempt {
	e.t.Helper()
	a, err := e.store.Attempts(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// counters checks the job's executionCount, failureCount and faultedCount.
func (e *env) counters(id int64, exec, fail, faulted int64) {
	e.t.Helper()
	j := e.job(id)
	if j.ExecutionCount != exec || j.FailureCount != fail || j.FaultedCount != faulted {
		e.t.Errorf("counters = %d/%d/%d, want %d/%d/%d", j.ExecutionCount, j.FailureCount, j.FaultedCount, exec, fail, faulted)
	}
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// historyLine summarises an entry for comparisons.
func historyLine(h models.HistoryEntry) string {
	return fmt.Sprintf("%s %s retry=%d repeat=%d", h.ActionName, h.Status, h.RetryCount, h.RepeatCount)
}

func historyLines(hs []models.HistoryEntry) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = historyLine(h)
	}
	return out
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkCompletedOnce checks that every one-time job of ids is Completed
// with one execution and one history entry, Completed.
func checkCompletedOnce(t *testing.T, store *models.Store, ids []int64) {
	t.Helper()
	ctx := context.Background()
	jobs, err := store.JobsByID(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(ids) {
		t.Fatalf("%d jobs read back, want %d", len(jobs), len(ids))
	}
	for _, j := range jobs {
		h, err := store.History(ctx, models.HistoryQuery{JobID: j.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if j.State != jobdef.Completed || j.ExecutionCount != 1 || len(h) != 1 || h[0].Status != models.StatusCompleted {
			t.Errorf("job %s: state %s, %d executions, history %d entries", j.Name, j.State, j.ExecutionCount, len(h))
		}
	}
}
