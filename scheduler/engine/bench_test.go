package engine

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sked/models/pgserver"
	"sked/models/testdb"
)

// The engine benchmarks are a harness, not timed tests: run them with
//
//	go test ./scheduler/engine -run '^$' -bench Engine -benchtime 1x -timeout 30m
//
// Each iteration gets its own database on the package's throwaway cluster
// (fsync off, like the other tests), a loopback HTTP sink that answers 200
// at once, and one engine with the default configuration. Results are in
// BENCHMARKS.md.

// benchJobs inserts n enabled minute jobs calling url whose start times are
// spread evenly over the minute after t0, with their next run already set
// (as if scheduled), straight in SQL so that setting up 100,000 jobs takes
// seconds.
func benchJobs(b *testing.B, db *sql.DB, coll int64, n int, t0 time.Time, url string) {
	b.Helper()
	_, err := db.Exec(`
		WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
		SELECT $1, 'b' || g,
		       json_build_object('startTime', to_char(s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		                         'recurrence', json_build_object('frequency', 'minute'),
		                         'action', json_build_object('type', 'http',
		                             'request', json_build_object('uri', $3::text, 'method', 'GET'),
		                             'retryPolicy', json_build_object('retryType', 'none'))),
		       'enabled', s, $2::timestamptz
		FROM generate_series(0, $4 - 1) g,
		     LATERAL (SELECT $2::timestamptz + make_interval(secs => (g * 60 / $4)::int)) AS t(s)
		RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`,
		coll, t0, url, n)
	if err != nil {
		b.Fatal(err)
	}
	// The statistics of a table in use, not of the empty table the
	// database was created with: without them the engine's first minute
	// of queries is planned for an empty jobs table until autovacuum
	// analyzes it (whenever that comes, so runs differed widely).
	if _, err := db.Exec(`ANALYZE jobs, job_results`); err != nil {
		b.Fatal(err)
	}
}

func benchSink(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkEngineRate runs minute jobs due at a steady rate per second for
// 70 s and reports the executions per second achieved over the last 60 s
// and the start lateness (p50, p99, max) of the attempts in that window,
// and per 1,000 executions the database's commits and the cluster's WAL
// flushes (pg_stat_wal.wal_sync) over the whole run. With durable=off it
// runs on the package's test cluster (fsync, full_page_writes and
// synchronous_commit off); with durable=on on a cluster of its own with
// PostgreSQL's defaults (all three on), as users run it.
func BenchmarkEngineRate(b *testing.B) {
	durable := durableCluster(b)
	for _, on := range []bool{false, true} {
		for _, rate := range []int{500, 2000} {
			b.Run(fmt.Sprintf("durable=%s/%dperSecond", map[bool]string{false: "off", true: "on"}[on], rate), func(b *testing.B) {
				for b.Loop() {
					if on {
						benchRate(b, rate, durable.dsn(b))
					} else {
						benchRate(b, rate, testdb.DSN(b))
					}
				}
			})
		}
	}
}

// durable is a PostgreSQL cluster with production durability (the
// embedded cluster's defaults), started on first use.
type durable struct {
	tb  testing.TB
	dir string
	pg  *pgserver.Embedded
	n   int
}

// durableCluster returns a durable cluster started on first use, stopped
// and removed when tb ends.
func durableCluster(tb testing.TB) *durable {
	d := &durable{tb: tb}
	tb.Cleanup(func() {
		if d.pg != nil {
			d.pg.Close(context.Background())
		}
		if d.dir != "" {
			os.RemoveAll(d.dir)
		}
	})
	return d
}

// dsn returns the DSN of a new migrated database on the cluster.
func (d *durable) dsn(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	if d.pg == nil {
		dir, err := os.MkdirTemp("", "sked-durable-")
		if err != nil {
			tb.Fatal(err)
		}
		os.Chmod(dir, 0o755) // the server may run as another user
		d.dir = dir
		if d.pg, err = pgserver.OpenEmbedded(ctx, dir, quietLogger()); err != nil {
			tb.Fatal(err)
		}
	}
	d.n++
	name := fmt.Sprintf("rate%d", d.n)
	admin, err := sql.Open("pgx", d.pg.DSN())
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatal(err)
	}
	dsn := strings.Replace(d.pg.DSN(), "dbname=sked", "dbname="+name, 1)
	store := openStore(tb, dsn)
	if _, err := store.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return dsn
}

// walCounters returns the commits of the current database and the
// cluster's WAL flushes so far.
func walCounters(b *testing.B, db *sql.DB) (commits, syncs int64) {
	err := db.QueryRow(`SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
		(SELECT wal_sync FROM pg_stat_wal)`).Scan(&commits, &syncs)
	if err != nil {
		b.Fatal(err)
	}
	return commits, syncs
}

func benchRate(b *testing.B, rate int, dsn string) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	store := openStore(b, dsn)
	coll := newCollection(b, store)
	sink := benchSink(b)
	t0 := time.Now().Add(5 * time.Second).Truncate(time.Second)
	benchJobs(b, db, coll.ID, rate*60, t0, sink.URL)
	commits0, syncs0 := walCounters(b, db)
	e := startLive(b, store, Config{})
	time.Sleep(time.Until(t0.Add(70 * time.Second)))
	e.Stop(context.Background())
	store.Close()
	time.Sleep(600 * time.Millisecond) // closed sessions flush their statistics
	commits1, syncs1 := walCounters(b, db)
	from, to := t0.Add(10*time.Second), t0.Add(70*time.Second)
	var n int64
	var p50, p99, mx float64
	err = db.QueryRow(`SELECT count(*),
			coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness_ms), 0),
			coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness_ms), 0),
			coalesce(max(lateness_ms), 0)
		FROM job_history WHERE expected_execution_time >= $1 AND expected_execution_time < $2 AND status = 'Completed'`,
		from, to).Scan(&n, &p50, &p99, &mx)
	if err != nil {
		b.Fatal(err)
	}
	var all int64
	if err := db.QueryRow(`SELECT count(*) FROM job_history`).Scan(&all); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/to.Sub(from).Seconds(), "exec/s")
	b.ReportMetric(p50, "p50-late-ms")
	b.ReportMetric(p99, "p99-late-ms")
	b.ReportMetric(mx, "max-late-ms")
	b.ReportMetric(float64(rate), "due/s")
	if all > 0 {
		b.ReportMetric(float64(commits1-commits0)*1000/float64(all), "commits/1k")
		b.ReportMetric(float64(syncs1-syncs0)*1000/float64(all), "walsyncs/1k")
	}
}

// BenchmarkEngineIdle measures the CPU an idle engine uses (this process
// and its PostgreSQL backends) with 100,000 enabled jobs due in a year,
// over 60 s, in percent of one core.
func BenchmarkEngineIdle(b *testing.B) {
	for b.Loop() {
		dsn := testdb.DSN(b)
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			b.Fatal(err)
		}
		store := openStore(b, dsn)
		coll := newCollection(b, store)
		benchJobs(b, db, coll.ID, 100_000, time.Now().Add(365*24*time.Hour), "http://127.0.0.1:9/")
		db.Exec(`VACUUM ANALYZE jobs, job_results`)
		e := startLive(b, store, Config{})
		time.Sleep(2 * time.Second) // let it settle
		dbName := dsnDatabase(dsn)
		cpu0, wall0 := cpuSeconds(b, db, dbName), time.Now()
		time.Sleep(60 * time.Second)
		cpu1, wall1 := cpuSeconds(b, db, dbName), time.Now()
		e.Stop(context.Background())
		db.Close()
		b.ReportMetric(100*(cpu1-cpu0)/wall1.Sub(wall0).Seconds(), "%core")
	}
}

func dsnDatabase(dsn string) string {
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "dbname="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// cpuSeconds returns the CPU time used so far by this process and by the
// PostgreSQL backends connected to database name (the engine's).
func cpuSeconds(b *testing.B, db *sql.DB, name string) float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	total := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, name)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		rows.Scan(&pid)
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		ut, _ := strconv.ParseFloat(fields[11], 64)
		st, _ := strconv.ParseFloat(fields[12], 64)
		total += (ut + st) / 100 // clock ticks (USER_HZ = 100)
	}
	return total
}

// BenchmarkEngineLatenessByKind measures the start lateness of every kind
// of attempt (SPEC §13.1) at R occurrences due per second: R×60 minute
// jobs as in EngineRate, of which every tenth calls a path that answers 500
// and has retryPolicy fixed PT15S × 1 and an error action (so each of its
// occurrences makes a retry 15 s after the failure and an error action at
// once after the retry fails), plus 10 Run now calls per second on 100
// jobs due in a year. The engine runs 88 s; the figures cover the
// occurrences expected in [10 s, 70 s) with their retries and error
// actions, and the Run now calls made in that window: lateness =
// job_history.lateness_ms (start − due; for a retry, due = the failure's
// end + 15 s; for an error action, the end of the last failed attempt; for
// Run now, the moment of the call) p50 / p99 / max per kind.
func BenchmarkEngineLatenessByKind(b *testing.B) {
	for _, rate := range []int{100, 500} {
		b.Run(strconv.Itoa(rate)+"perSecond", func(b *testing.B) {
			for b.Loop() {
				benchKinds(b, rate)
			}
		})
	}
}

func benchKinds(b *testing.B, rate int) {
	dsn := testdb.DSN(b)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	store := openStore(b, dsn)
	coll := newCollection(b, store)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		io.WriteString(w, "ok")
	}))
	b.Cleanup(sink.Close)
	ok := fmt.Sprintf(`{"type":"http","request":{"uri":%q,"method":"GET"},"retryPolicy":{"retryType":"none"}}`, sink.URL+"/ok")
	fail := fmt.Sprintf(`{"type":"http","request":{"uri":%q,"method":"GET"},`+
		`"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1},"errorAction":%s}`, sink.URL+"/fail", ok)
	// The jobs run now, made first: the write service counts the
	// collection's jobs against its quota.
	far := make([]int64, 100)
	for i := range far {
		far[i] = putJob(b, store, coll, fmt.Sprintf("rn%d", i), fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"year"},"action":%s}`,
			rfc(time.Now().Add(365*24*time.Hour)), ok))
	}
	t0 := time.Now().Add(5 * time.Second).Truncate(time.Second)
	n := rate * 60
	_, err = db.Exec(`
		WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
		SELECT $1, 'b' || g,
		       json_build_object('startTime', to_char(s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		                         'recurrence', json_build_object('frequency', 'minute'),
		                         'action', CASE WHEN g % 10 = 0 THEN $5::json ELSE $4::json END),
		       'enabled', s, $2::timestamptz
		FROM generate_series(0, $3 - 1) g,
		     LATERAL (SELECT $2::timestamptz + make_interval(secs => (g * 60 / $3)::int)) AS t(s)
		RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`,
		coll.ID, t0, n, ok, fail)
	if err != nil {
		b.Fatal(err)
	}
	e := startLive(b, store, Config{})
	from, to := t0.Add(10*time.Second), t0.Add(70*time.Second)
	time.Sleep(time.Until(from))
	for i := 0; time.Now().Before(to); i++ {
		if _, err := e.runNow(b, coll, far[i%len(far)]); err != nil {
			b.Error(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Until(t0.Add(88 * time.Second)))
	e.Stop(context.Background())
	rows, err := db.Query(`
		SELECT kind, count(*),
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness_ms),
		       percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness_ms),
		       max(lateness_ms)
		FROM (SELECT CASE WHEN j.name LIKE 'rn%' THEN 'runnow'
		                  WHEN h.action_name = 'ErrorAction' THEN 'error'
		                  WHEN h.retry_count > 0 THEN 'retry' ELSE 'occurrence' END AS kind, h.lateness_ms
		      FROM job_history h JOIN jobs j ON j.id = h.job_id
		      WHERE h.expected_execution_time >= $1 AND h.expected_execution_time < $2 AND h.lateness_ms IS NOT NULL) k
		GROUP BY kind ORDER BY kind`, from, to)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var count int64
		var p50, p99, mx float64
		if err := rows.Scan(&kind, &count, &p50, &p99, &mx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(count), kind+"-n")
		b.ReportMetric(p50, kind+"-p50-ms")
		b.ReportMetric(p99, kind+"-p99-ms")
		b.ReportMetric(mx, kind+"-max-ms")
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}
