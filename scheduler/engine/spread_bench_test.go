package engine

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// BenchmarkSpreadWindow measures how evenly recurrence.window spreads a
// burst (SPEC §16.1): 5,000 daily jobs at 00:00 with window PT5M, created
// through the write service in five P20Premium collections (real ids),
// scheduled and run by one engine on a fake clock stepped one second at a
// time over the five minutes. It reports the starts per second of the
// window (mean, busiest and quietest second, and their deviation from the
// mean in percent) and the largest lateness recorded (from the due time).
//
//	go test ./scheduler/engine -run '^$' -bench SpreadWindow -benchtime 1x -timeout 30m
func BenchmarkSpreadWindow(b *testing.B) {
	for b.Loop() {
		benchSpread(b)
	}
}

func benchSpread(b *testing.B) {
	const jobs, seconds = 5000, 300
	ctx := context.Background()
	dsn := testdb.DSN(b)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	store := openStore(b, dsn)
	defer store.Close()
	sink := benchSink(b)
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	clock := newFakeClock(midnight.Add(-time.Hour))
	cat := catalog.New(store, clock.Now)
	def := fmt.Sprintf(`{"startTime":%q,"action":{"type":"http","request":{"uri":%q,"method":"GET"},"retryPolicy":{"retryType":"none"}},
		"recurrence":{"frequency":"day","window":"PT5M"}}`, midnight.Format(time.RFC3339), sink.URL)
	for c := 0; c < jobs/1000; c++ {
		coll := catalogtest.Collection(b, cat, catalogtest.CollectionOpts{})
		for i := 0; i < 1000; i++ {
			catalogtest.Job(b, cat, coll, catalogtest.JobOpts{Definition: def})
		}
	}
	eng, err := New(allowLoopback(Config{InstanceID: "bench-spread", MaxWorkers: 512}), Deps{Store: store, Clock: clock, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	for pending := jobs; pending > 0; {
		if _, err := eng.runDue(ctx); err != nil {
			b.Fatal(err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE needs_schedule`).Scan(&pending); err != nil {
			b.Fatal(err)
		}
	}
	starts := make([]int, seconds)
	total := 0
	for s := 0; s <= seconds; s++ {
		clock.Set(midnight.Add(time.Duration(s) * time.Second))
		n, err := eng.runDue(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if s == seconds && n > 0 {
			b.Fatalf("%d runs due at the window's end", n)
		}
		if s < seconds {
			starts[s] = n
		}
		total += n
	}
	if total != jobs {
		b.Fatalf("%d runs started, want %d", total, jobs)
	}
	mean := float64(jobs) / seconds
	lo, hi := starts[0], starts[0]
	for _, n := range starts {
		lo, hi = min(lo, n), max(hi, n)
	}
	var late int64
	if err := db.QueryRow(`SELECT coalesce(max(lateness_ms), 0) FROM job_history`).Scan(&late); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(mean, "mean-starts/s")
	b.ReportMetric(float64(hi), "max-starts/s")
	b.ReportMetric(float64(lo), "min-starts/s")
	b.ReportMetric((float64(hi)/mean-1)*100, "max-dev-%")
	b.ReportMetric((float64(lo)/mean-1)*100, "min-dev-%")
	b.ReportMetric(float64(late), "max-late-ms")
}
