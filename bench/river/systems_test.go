package river

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"sked/models"
	"sked/scheduler/action"
	"sked/scheduler/engine"
)

// system prepares one run of n calls due at rate per second from t0 on a
// fresh database, then starts and stops the system.
type system struct {
	name    string
	prepare func(tb testing.TB, dsn string, s *sink, n int) (start, stop func())
}

var systems = []system{{"sked", prepareSked}, {"river", prepareRiver}}

// lead is how long after the jobs are stored the first warm-up call is
// due; warmUp how many seconds of calls at the run's rate come first,
// unmeasured; gap how long after them the measured calls start (both
// systems have then caught up: River's p99 lateness at 2,000/s is under
// 2 s); grace how long a run goes on after the last one is due.
//
// The warm-up makes a run measure a system that has been running, as one
// that carries a hundred million executions a month does: its
// connections open, its statements prepared and planned (PostgreSQL
// plans a prepared statement anew for its first five executions on each
// connection), its caches filled. Without it, a 10-s run at 500/s
// counted every start-up cost of both systems into 5,000 executions.
const (
	lead   = 5 * time.Second
	warmUp = 2
	gap    = 3 * time.Second
	grace  = 5 * time.Second
)

// measure runs sys on a new database of c: warmUp seconds of calls at
// rate from lead after the jobs are stored, then, gap after them, the
// measured n = rate×d calls. It measures the server's CPU, this process's
// and the database's commits from just before the first measured call is
// due (the warm-up's calls have all arrived by then) to just after the
// system stopped.
func measure(tb testing.TB, c *cluster, sys system, rate int, d time.Duration) result {
	tb.Helper()
	name, dsn := c.database(tb, "bench_"+sys.name)
	n, warm := rate*int(d/time.Second), rate*warmUp
	s := newSink(tb, warm, n, rate, gap)
	s.t0 = time.Now().Add(lead).Truncate(time.Second).Add(time.Second)
	start, stop := sys.prepare(tb, dsn, s, warm+n)
	start()
	time.Sleep(time.Until(s.due(warm).Add(-500 * time.Millisecond)))
	if statementsWanted() {
		resetStatements(tb, dsn)
	}
	load := loadavg()
	cpu0, commits0, sessions0, syncs0 := c.cpuSeconds(tb), c.commits(tb, name), c.sessions(tb, name), c.walSyncs(tb)
	kinds := startCPUKinds(tb, c)
	stopProfile := startProfile(tb, fmt.Sprintf("%s-%d", sys.name, rate))
	proc0 := processCPUSeconds(tb)
	time.Sleep(time.Until(s.due(warm + n - 1).Add(grace)))
	stop()
	proc := processCPUSeconds(tb) - proc0
	stopProfile()
	time.Sleep(600 * time.Millisecond) // the statistics of closed sessions are flushed
	r := s.summarise(c.cpuSeconds(tb)-cpu0, c.commits(tb, name)-commits0)
	r.load1 = load
	r.sessions = c.sessions(tb, name) - sessions0
	if r.executed > 0 {
		r.procPer1k = proc * 1000 / float64(r.executed)
		r.walSyncsPer1k = float64(c.walSyncs(tb)-syncs0) * 1000 / float64(r.executed)
		by := kinds.stop()
		r.backendPer1k = by["backend"] * 1000 / float64(r.executed)
		r.autovacuumPer1k = by["autovacuum"] * 1000 / float64(r.executed)
	} else {
		kinds.stop()
	}
	if statementsWanted() {
		logStatements(tb, dsn, name)
	}
	return r
}

// startProfile starts this process's CPU profile into
// SKED_BENCH_CPUPROFILE-name.prof (cpuProfile) and returns what stops
// it; without the variable it does nothing.
func startProfile(tb testing.TB, name string) (stop func()) {
	tb.Helper()
	if cpuProfile() == "" {
		return func() {}
	}
	f, err := os.Create(cpuProfile() + "-" + name + ".prof")
	if err != nil {
		tb.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		tb.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			tb.Error(err)
		}
	}
}

// prepareSked stores n minute jobs calling the sink, the k-th first due at
// s.due(k) with its next run set (as if scheduled), like the engine's
// BenchmarkEngineRate, and returns an engine with the default
// configuration (loopback targets allowed).
func prepareSked(tb testing.TB, dsn string, s *sink, n int) (start, stop func()) {
	tb.Helper()
	ctx := context.Background()
	store, err := models.Open(ctx, dsn, models.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := store.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "owner", Password: "password123"}); err != nil {
		tb.Fatal(err)
	}
	coll := &models.JobCollection{Name: "bench"}
	if err := store.CreateCollection(ctx, models.DefaultWorkspaceID, "rg", coll); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if x := benchSQL(); x != "" {
		if _, err := db.Exec(x); err != nil {
			tb.Fatalf("SKED_BENCH_SQL: %v", err)
		}
	}
	_, err = db.Exec(`
		WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
		SELECT $1, 'b' || g,
		       json_build_object('startTime', to_char(s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		                         'recurrence', json_build_object('frequency', 'minute'),
		                         'action', json_build_object('type', 'http',
		                             'request', json_build_object('uri', $3::text || g, 'method', 'GET'),
		                             'retryPolicy', json_build_object('retryType', 'none'))),
		       'enabled', s, s
		FROM generate_series(0, $4 - 1) g,
		     LATERAL (SELECT $2::timestamptz + make_interval(secs => g / $5 + CASE WHEN g >= $6 THEN $7 ELSE 0 END)) AS t(s)
		RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`,
		coll.ID, s.t0, s.srv.URL+"/?k=", n, s.rate, s.warm, int(s.gap/time.Second))
	if err != nil {
		tb.Fatal(err)
	}
	db.Exec(`VACUUM ANALYZE jobs, job_results`)
	cfg := engine.Config{InstanceID: "bench", MaxWorkers: benchWorkers(), ClaimOverlap: benchOverlap(),
		Action: action.Config{AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	e, err := engine.New(cfg, engine.Deps{Store: store, Notifier: models.NewListener(store.DSN(), quiet()), Logger: quiet()})
	if err != nil {
		tb.Fatal(err)
	}
	start = func() {
		if err := e.Start(); err != nil {
			tb.Fatal(err)
		}
	}
	stop = func() {
		if err := e.Stop(ctx); err != nil {
			tb.Error(err)
		}
		store.Close()
	}
	return start, stop
}

// callArgs is River's job: one GET of URL.
type callArgs struct {
	URL string `json:"url"`
}

func (callArgs) Kind() string { return "call" }

// callWorker makes the call, failing on a non-2xx answer.
type callWorker struct {
	river.WorkerDefaults[callArgs]
	client *http.Client
}

func (w *callWorker) Work(ctx context.Context, job *river.Job[callArgs]) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, job.Args.URL, nil)
	if err != nil {
		return err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// prepareRiver migrates River's schema, inserts n jobs calling the sink,
// the k-th scheduled at s.due(k), and returns a client with River's
// default configuration but for the default queue's MaxWorkers, set to
// Sked's (benchWorkers: 256 unless SKED_BENCH_WORKERS says otherwise).
func prepareRiver(tb testing.TB, dsn string, s *sink, n int) (start, stop func()) {
	tb.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	driver := riverpgxv5.New(pool)
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet()})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		tb.Fatal(err)
	}
	workers := river.NewWorkers()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = benchWorkers()
	river.AddWorker(workers, &callWorker{client: &http.Client{Transport: tr, Timeout: 30 * time.Second}})
	client, err := river.NewClient(driver, &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: benchWorkers()}},
		Workers: workers,
		Logger:  quiet(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	params := make([]river.InsertManyParams, n)
	for k := range params {
		params[k] = river.InsertManyParams{Args: callArgs{URL: fmt.Sprintf("%s/?k=%d", s.srv.URL, k)},
			InsertOpts: &river.InsertOpts{ScheduledAt: s.due(k)}}
	}
	for i := 0; i < n; i += 5000 {
		if _, err := client.InsertManyFast(ctx, params[i:min(n, i+5000)]); err != nil {
			tb.Fatal(err)
		}
	}
	pool.Exec(ctx, `VACUUM ANALYZE river_job`)
	start = func() {
		if err := client.Start(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	stop = func() {
		if err := client.Stop(ctx); err != nil {
			tb.Error(err)
		}
		pool.Close()
	}
	return start, stop
}

// processCPUSeconds is the CPU time (user and system) this test process
// has used: the system under test (Sked's engine or River's client), the
// sink's handlers (the same work per call for both) and the harness.
func processCPUSeconds(tb testing.TB) float64 {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
