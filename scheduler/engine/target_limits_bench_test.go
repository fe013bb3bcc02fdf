package engine

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog/catalogtest"
)

// burstJobs is how many jobs BenchmarkTargetBurst makes due at once
// (SPEC §16.2's midnight burst is 5,000; the default keeps a run short).
var burstJobs = flag.Int("targetburst.jobs", 1000, "jobs due at the same second in BenchmarkTargetBurst")

// burstEngines is how many engines BenchmarkTargetBurst runs on its
// database.
var burstEngines = flag.Int("targetburst.engines", 3, "engines sharing the database in BenchmarkTargetBurst")

// BenchmarkTargetBurst is the midnight burst: -targetburst.jobs one-time
// jobs due at the same second to one host limited to 20 in flight and 100
// starts a second, whose target answers after 50 ms, run by
// -targetburst.engines engines on one database; meanwhile another host,
// without a limit, gets 10 jobs due every second. It reports how long the
// burst took to deliver (drain-s, from the due second to the last
// request), the most requests the limited target saw at once and in one
// second of the wall clock, and the start lateness of the other host's
// jobs (p50, p99, max). It fails when a job is not delivered exactly
// once, a limit is exceeded as the target measured it, or the burst takes
// longer than jobs/100 + 2 s.
//
//	go test ./scheduler/engine -run '^$' -bench TargetBurst -benchtime 1x -targetburst.jobs 5000 -timeout 30m
func BenchmarkTargetBurst(b *testing.B) {
	for b.Loop() {
		benchTargetBurst(b, *burstJobs, *burstEngines)
	}
}

func benchTargetBurst(b *testing.B, n, engines int) {
	dsn := testdb.DSN(b)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	now, most := 0, 0
	perSec := map[int64]int{}
	keys := map[string]int{}
	var last time.Time
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		mu.Lock()
		now++
		most = max(most, now)
		perSec[at.Unix()]++
		keys[r.Header.Get("Idempotency-Key")]++
		last = at
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		now--
		mu.Unlock()
	}))
	b.Cleanup(limited.Close)
	other := benchSink(b)
	stores := make([]*models.Store, engines)
	for i := range stores {
		stores[i] = openStore(b, dsn)
	}
	coll := newCollection(b, stores[0])
	u, _ := url.Parse(limited.URL)
	lives := make([]*live, engines)
	for i := range lives {
		lives[i] = startLive(b, stores[i], Config{InstanceID: fmt.Sprintf("burst-%d", i)})
	}
	if _, _, err := lives[0].cat.PutTargetLimit(context.Background(), catalogtest.Actor, coll.WorkspaceID, u.Host,
		[]byte(`{"maxConcurrent": 20, "maxPerSecond": 100}`)); err != nil {
		b.Fatal(err)
	}
	budget := time.Duration(n/100)*time.Second + 2*time.Second
	t0 := time.Now().Add(5 * time.Second).Truncate(time.Second)
	othersPerSec, otherSecs := 10, int(budget/time.Second)+2
	_, err = db.Exec(`
		WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
		SELECT $1::bigint, CASE WHEN g < $3::int THEN 'burst' ELSE 'other' END || g,
		       json_build_object('startTime', to_char(s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		                         'action', json_build_object('type', 'http',
		                             'request', json_build_object('uri', CASE WHEN g < $3 THEN $4::text ELSE $5::text END, 'method', 'GET'),
		                             'retryPolicy', json_build_object('retryType', 'none'))),
		       'enabled', s, $2::timestamptz
		FROM generate_series(0, $3 + $6::int * $7::int - 1) g,
		     LATERAL (SELECT $2::timestamptz + CASE WHEN g < $3 THEN interval '0' ELSE make_interval(secs => ((g - $3) / $6)::int) END) AS t(s)
		RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`,
		coll.ID, t0, n, limited.URL+"/burst", other.URL+"/other", othersPerSec, otherSecs)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`ANALYZE jobs, job_results`); err != nil {
		b.Fatal(err)
	}
	if time.Now().After(t0) {
		b.Fatal("storing the jobs outlasted the 5-s lead")
	}
	lives[0].Wake()
	deadline := t0.Add(budget + 30*time.Second)
	for {
		var done int
		if err := db.QueryRow(`SELECT count(*) FROM job_history`).Scan(&done); err != nil {
			b.Fatal(err)
		}
		if done >= n+othersPerSec*otherSecs || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, l := range lives {
		l.Stop(context.Background())
	}
	var p50, p99, mx float64
	var others int
	if err := db.QueryRow(`SELECT count(*), coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.lateness_ms), 0),
			coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY h.lateness_ms), 0), coalesce(max(h.lateness_ms), 0)
		FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE j.name LIKE 'other%'`).Scan(&others, &p50, &p99, &mx); err != nil {
		b.Fatal(err)
	}
	var waitP99, waitMax float64
	if err := db.QueryRow(`SELECT coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY limit_wait_ms), 0), coalesce(max(limit_wait_ms), 0)
		FROM job_history WHERE limit_wait_ms IS NOT NULL`).Scan(&waitP99, &waitMax); err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	mostPerSec, dups := 0, 0
	for _, c := range perSec {
		mostPerSec = max(mostPerSec, c)
	}
	for _, c := range keys {
		if c > 1 {
			dups++
		}
	}
	drain := last.Sub(t0)
	b.Logf("%d jobs drained in %s (budget %s); at most %d in flight and %d in one second; the other host's lateness p50 %.0f ms, p99 %.0f ms, max %.0f ms; limit wait p99 %.1f s, max %.1f s",
		n, drain.Round(time.Millisecond), budget, most, mostPerSec, p50, p99, mx, waitP99/1000, waitMax/1000)
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.ReportMetric(float64(most), "most-in-flight")
	b.ReportMetric(float64(mostPerSec), "most-per-s")
	b.ReportMetric(p50, "other-p50-late-ms")
	b.ReportMetric(p99, "other-p99-late-ms")
	b.ReportMetric(mx, "other-max-late-ms")
	b.ReportMetric(waitP99/1000, "p99-limit-wait-s")
	b.ReportMetric(waitMax/1000, "max-limit-wait-s")
	b.ReportMetric(float64(n), "jobs")
	if len(keys) != n || dups > 0 {
		b.Errorf("the limited target got %d distinct jobs of %d, %d more than once", len(keys), n, dups)
	}
	if others != othersPerSec*otherSecs {
		b.Errorf("%d of the other host's %d jobs ran", others, othersPerSec*otherSecs)
	}
	if most > 20 || mostPerSec > 100 {
		b.Errorf("the limited target saw %d at once and %d in one second; the limits are 20 and 100", most, mostPerSec)
	}
	if drain > budget {
		b.Errorf("the burst took %s, more than %s", drain.Round(time.Millisecond), budget)
	}
}
