package engine

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
)

// BenchmarkImportDisturbance measures what a large import does to the jobs
// an engine is running (issue 11 item 9). Run it with
//
//	go test ./scheduler/engine -run '^$' -bench ImportDisturbance -benchtime 1x -timeout 30m
//
// One engine runs 200 minute jobs per second (12,000 jobs, as
// BenchmarkEngineRate sets them up) against a loopback sink on the
// package's test cluster. After 65 s (5 s to start, then the 60 s window
// "before") 100,000 jobs are imported through the catalog as the API, the
// page and the CLI import them (ParseImport, then Catalog.Import: check,
// then one transaction), into 100 P20Premium collections, with schedules
// spread over the hour and the day (hourly, every 15 minutes and daily
// jobs whose start times are in the past, so that the start-time rules
// apply, in several zones; weekly and one-time jobs starting later). The
// run ends 60 s after the import returned.
//
// It reports the running jobs' start lateness (p50, p99, max) in the 60 s
// before the import and from its start until the end ("during"), the
// import's duration (and its checking part), the time from the import's
// start until no job waits for an engine to schedule it (needs_schedule
// false everywhere), and the imported jobs' first occurrences due in that
// time: how many ran, their lateness p99 and max, and how many were
// skipped as missed.
func BenchmarkImportDisturbance(b *testing.B) {
	for b.Loop() {
		benchImportDisturbance(b, 200, 100_000)
	}
}

// importBenchFile is an export bundle of n jobs calling url, 1,000 per
// P20Premium collection, with the schedules BenchmarkImportDisturbance
// describes, relative to now.
func importBenchFile(n int, url string, now time.Time) []byte {
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney"}
	past := now.Add(-40 * 24 * time.Hour).UTC().Truncate(time.Hour)
	var sb strings.Builder
	sb.WriteString(`{"jobCollections": [`)
	for c := 0; c*1000 < n; c++ {
		if c > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id": "/subscriptions/default/resourceGroups/imported/providers/Microsoft.Scheduler/jobCollections/i%d",
			"properties": {"sku": {"name": "P20Premium"}}, "jobs": [`, c)
		for k := 0; k < 1000 && c*1000+k < n; k++ {
			i := c*1000 + k
			if k > 0 {
				sb.WriteString(",")
			}
			action := `"action": {"type": "http", "request": {"uri": "` + url + `/imported", "method": "POST", "body": "x"}, "retryPolicy": {"retryType": "none"}}`
			spread := past.Add(time.Duration(i%3600) * time.Second) // over the hour
			var def string
			switch i % 20 {
			case 0, 1, 2, 3, 4, 5, 6, 7: // 40%: hourly, started in the past
				def = fmt.Sprintf(`"startTime": %q, %s, "recurrence": {"frequency": "hour"}`, spread.Format(time.RFC3339), action)
			case 8, 9, 10: // 15%: every 15 minutes, started in the past
				def = fmt.Sprintf(`"startTime": %q, %s, "recurrence": {"frequency": "minute", "interval": 15}`, spread.Format(time.RFC3339), action)
			case 11, 12, 13, 14, 15, 16: // 30%: daily at a time of day, in a zone
				def = fmt.Sprintf(`"startTime": %q, %s, "recurrence": {"frequency": "day", "timeZone": %q, "schedule": {"hours": [%d], "minutes": [%d]}}`,
					past.Format(time.RFC3339), action, zones[i%len(zones)], (i/20)%24, (i/480)%60)
			case 17, 18: // 10%: weekly, starting tomorrow
				def = fmt.Sprintf(`"startTime": %q, %s, "recurrence": {"frequency": "week", "schedule": {"weekDays": ["monday", "thursday"], "hours": [%d], "minutes": [%d]}}`,
					now.Add(24*time.Hour).UTC().Format(time.RFC3339), action, (i/20)%24, i%60)
			default: // 5%: once, within the next two hours
				def = fmt.Sprintf(`"startTime": %q, %s`, now.Add(time.Duration(i%7200)*time.Second).UTC().Format(time.RFC3339), action)
			}
			fmt.Fprintf(&sb, `{"name": "i%d/job%d", "properties": {%s}}`, c, i, def)
		}
		sb.WriteString("]}")
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

// lateness is p50, p99 and max start lateness (ms) and the count of the
// attempts query selects (its three arguments: from, to, and a collection
// id or 0).
func lateness(b *testing.B, db *sql.DB, query string, args ...any) (n int64, p50, p99, mx float64) {
	b.Helper()
	err := db.QueryRow(`SELECT count(*),
			coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness_ms), 0),
			coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness_ms), 0),
			coalesce(max(lateness_ms), 0)
		FROM job_history h JOIN jobs j ON j.id = h.job_id `+query, args...).Scan(&n, &p50, &p99, &mx)
	if err != nil {
		b.Fatal(err)
	}
	return n, p50, p99, mx
}

func benchImportDisturbance(b *testing.B, rate, n int) {
	dsn := testdb.DSN(b)
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
	e := startLive(b, store, Config{})
	cat := catalog.New(store, nil).WithRunner(e)
	importAt := t0.Add(65 * time.Second)
	data := importBenchFile(n, sink.URL, importAt)
	time.Sleep(time.Until(importAt))

	// Watch for jobs waiting to be scheduled from the import's start.
	start := time.Now()
	var imported atomic.Bool
	scheduled := make(chan time.Time, 1)
	go func() {
		for {
			time.Sleep(100 * time.Millisecond)
			var waiting bool
			if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM jobs WHERE needs_schedule AND state = 'enabled')`).Scan(&waiting); err != nil {
				scheduled <- time.Time{}
				return
			}
			if !waiting && imported.Load() {
				scheduled <- time.Now()
				return
			}
		}
	}()
	var checked time.Time
	f, err := catalog.ParseImport(data)
	if err != nil {
		b.Fatal(err)
	}
	rep, err := cat.Import(context.Background(), catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{
		Progress: func(done, total int) {
			if done == total {
				checked = time.Now()
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	imported.Store(true)
	end := time.Now()
	if rep.Summary.Written != n {
		b.Fatalf("%d jobs written, want %d", rep.Summary.Written, n)
	}
	var allScheduled time.Time
	select {
	case allScheduled = <-scheduled:
	case <-time.After(10 * time.Minute):
	}
	until := end.Add(60 * time.Second)
	if allScheduled.After(end) {
		until = allScheduled.Add(60 * time.Second)
	}
	time.Sleep(time.Until(until))
	e.Stop(context.Background())
	store.Close()

	_, bp50, bp99, bmx := lateness(b, db, `WHERE j.job_collection_id = $1 AND h.expected_execution_time >= $2 AND h.expected_execution_time < $3
		AND h.status = 'Completed'`, coll.ID, t0.Add(5*time.Second), importAt)
	dn, dp50, dp99, dmx := lateness(b, db, `WHERE j.job_collection_id = $1 AND h.expected_execution_time >= $2 AND h.expected_execution_time < $3
		AND h.status = 'Completed'`, coll.ID, importAt, until)
	// The same in three parts: while the file is checked, while the
	// import writes, and after it returned.
	running := `WHERE j.job_collection_id = $1 AND h.expected_execution_time >= $2 AND h.expected_execution_time < $3 AND h.status = 'Completed'`
	_, _, cp99, _ := lateness(b, db, running, coll.ID, importAt, checked)
	_, _, wp99, _ := lateness(b, db, running, coll.ID, checked, end)
	_, _, ap99, _ := lateness(b, db, running, coll.ID, end, until)
	// The imported jobs' first occurrences due before the end.
	fn, _, fp99, fmx := lateness(b, db, `WHERE j.job_collection_id <> $1 AND h.expected_execution_time >= $2 AND h.expected_execution_time < $3
		AND h.repeat_count = 1 AND h.status <> 'Postponed'`, coll.ID, start, until)
	var missed int64
	if err := db.QueryRow(`SELECT count(*) FROM job_history h JOIN jobs j ON j.id = h.job_id
		WHERE j.job_collection_id <> $1 AND h.status = 'Postponed'`, coll.ID).Scan(&missed); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(bp50, "before-p50-ms")
	b.ReportMetric(bp99, "before-p99-ms")
	b.ReportMetric(bmx, "before-max-ms")
	b.ReportMetric(float64(dn)/until.Sub(importAt).Seconds(), "during-exec/s")
	b.ReportMetric(dp50, "during-p50-ms")
	b.ReportMetric(dp99, "during-p99-ms")
	b.ReportMetric(dmx, "during-max-ms")
	b.ReportMetric(cp99, "checking-p99-ms")
	b.ReportMetric(wp99, "writing-p99-ms")
	b.ReportMetric(ap99, "after-p99-ms")
	b.ReportMetric(end.Sub(start).Seconds(), "import-s")
	if !checked.IsZero() {
		b.ReportMetric(checked.Sub(start).Seconds(), "check-s")
	}
	if !allScheduled.IsZero() {
		b.ReportMetric(allScheduled.Sub(start).Seconds(), "scheduled-s")
	}
	b.ReportMetric(float64(fn), "first-runs")
	b.ReportMetric(fp99, "first-p99-ms")
	b.ReportMetric(fmx, "first-max-ms")
	b.ReportMetric(float64(missed), "first-missed")
}
