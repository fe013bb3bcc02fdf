package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/clocktest"
)

func TestMain(m *testing.M) { testdb.Main(m) }

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

// env is one test's database, collection, fake clock, target and engine.
type env struct {
	t      *testing.T
	ctx    context.Context
	store  *models.Store
	coll   *models.JobCollection
	clock  *fakeClock
	engine *Engine
	target *target
}

var collectionSeq struct {
	sync.Mutex
	n int
}

func newCollection(t testing.TB, store *models.Store) *models.JobCollection {
	t.Helper()
	ctx := context.Background()
	if needs, _ := store.NeedsSetup(ctx); needs {
		if _, err := store.CreateUser(ctx, models.NewUser{Username: "owner", Password: "password123"}); err != nil && !strings.Contains(err.Error(), "taken") {
			t.Fatal(err)
		}
	}
	collectionSeq.Lock()
	collectionSeq.n++
	name := fmt.Sprintf("c%d", collectionSeq.n)
	collectionSeq.Unlock()
	c := &models.JobCollection{Name: name}
	if err := store.CreateCollection(ctx, models.DefaultWorkspaceID, "rg", c); err != nil {
		t.Fatal(err)
	}
	return c
}

func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.Default()
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newEnv returns an env whose clock starts a few seconds ahead of the real
// clock (Store.PutJob takes a new job's schedule base from the real clock).
func newEnv(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *env {
	t.Helper()
	store := testdb.Store(t)
	e := &env{t: t, ctx: context.Background(), store: store, coll: newCollection(t, store),
		clock: newFakeClock(time.Now().Add(5 * time.Second).Truncate(time.Second)), target: newTarget(t, handle)}
	eng, err := New(allowLoopback(Config{InstanceID: "test-engine", MaxWorkers: 16}), Deps{Store: store, Clock: e.clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.engine = eng
	return e
}

// action returns an http action JSON calling the env's target at path.
func (e *env) action(path, extra string) string {
	a := fmt.Sprintf(`{"type":"Http","request":{"uri":%q,"method":"POST","body":"hello"}`, e.target.URL+path)
	if extra != "" {
		a += "," + extra
	}
	return a + "}"
}

// put creates job name with the given definition and returns its id.
func (e *env) put(name, def string) int64 {
	e.t.Helper()
	j := &models.Job{JobCollectionID: e.coll.ID, Name: name, Definition: json.RawMessage(def)}
	if _, err := e.store.PutJob(e.ctx, j); err != nil {
		e.t.Fatal(err)
	}
	return j.ID
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
