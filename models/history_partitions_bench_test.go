package models_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"sked/models"
)

// benchDetailsAndHours ends the benchmarks' seeding statement, whose
// first query h inserted Completed history entries (returning id and
// start_time): it stores their details and their hourly counts.
const benchDetailsAndHours = `
	d AS (INSERT INTO job_history_details (history_id, start_time, instance, request)
		SELECT id, start_time, 'bench', '{"uri": "http://127.0.0.1/"}' FROM h)
	INSERT INTO history_hours (workspace_id, hour, status, slot, count)
	SELECT 'default', date_trunc('hour', start_time), 'Completed', 0, count(*) FROM h GROUP BY 2
	ON CONFLICT (workspace_id, hour, status, slot) DO UPDATE SET count = history_hours.count + excluded.count`

// BenchmarkRetentionOfADay: retention by age of a day of history at 2,000
// executions/s (1,000,000 entries with their details, SPEC §18): "drop"
// drops the day's partitions (the day is a day partition), "rows" deletes
// the same entries row by row (the day lies in the until partition, the
// history stored before the partitions, as retention deleted every day
// before migration 0042). One iteration is one Prune; run with
// -benchtime 1x (seeding a day takes about 20 s).
func BenchmarkRetentionOfADay(b *testing.B) {
	for _, mode := range []string{"drop", "rows"} {
		b.Run(mode, func(b *testing.B) {
			store, db := storeAndDB(b)
			ctx := context.Background()
			coll := newCollection(b, store, "rg", "jc")
			job := insertJob(b, store, coll.ID, "busy")
			day := time.Date(2031, 6, 1, 0, 0, 0, 0, time.UTC)
			if mode == "rows" {
				day = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -40)
			}
			if _, err := store.EnsureHistoryPartitions(ctx, day); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				if _, err := db.Exec(`
					WITH h AS (
						INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
						SELECT $1, x.t, x.t, x.t, 'MainAction', 'Completed', 'Http Action - Response from host ''127.0.0.1'': ''OK'''
						FROM generate_series(0, 999999) g, LATERAL (SELECT $2::timestamptz + g * interval '86 milliseconds') x(t)
						RETURNING id, start_time),
					`+benchDetailsAndHours,
					job, day); err != nil {
					b.Fatal(err)
				}
				if _, err := db.Exec(`VACUUM ANALYZE job_history, job_history_details`); err != nil {
					b.Fatal(err)
				}
				now := day.AddDate(0, 0, 31)
				b.StartTimer()
				st, err := store.Prune(ctx, now, models.Retention{HistoryMaxAge: 30 * 24 * time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				if st.History != 1_000_000 {
					b.Fatalf("pruned %d entries, want 1,000,000", st.History)
				}
				if mode == "drop" { // the next iteration's day needs its partitions again
					b.StopTimer()
					if _, err := store.EnsureHistoryPartitions(ctx, day); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkRetentionPerJob: the per-job limit (--history-per-job 1000)
// over 1,000 jobs of 1,100 entries each (1,100,000 entries with their
// details, spread over 30 closed day partitions): one Prune removes each
// job's 100 oldest, 100,000 in all, from the three oldest days. "rewrite"
// is the engine's way (those days are rewritten); "rows" deletes the same
// entries row by row (a running record in every day keeps it from being
// rewritten), as every day was pruned before. Besides the Prune's time,
// dead-rows counts the dead rows it leaves in the history's and the
// details' partitions (pgstattuple): autovacuum's work to come. Run with
// -benchtime 1x (seeding takes about 30 s).
func BenchmarkRetentionPerJob(b *testing.B) {
	for _, mode := range []string{"rewrite", "rows"} {
		b.Run(mode, func(b *testing.B) { retentionPerJob(b, mode == "rows") })
	}
}

// retentionPerJob is BenchmarkRetentionPerJob, row by row when rows says so.
func retentionPerJob(b *testing.B, rows bool) {
	const jobs, per, limit = 1000, 1100, 1000
	store, db := storeAndDB(b)
	ctx := context.Background()
	coll := newCollection(b, store, "rg", "jc")
	ids := insertJobs(b, store, coll.ID, jobs)
	day := time.Date(2031, 6, 1, 0, 0, 0, 0, time.UTC)
	for k := range 4 {
		if _, err := store.EnsureHistoryPartitions(ctx, day.AddDate(0, 0, 8*k)); err != nil {
			b.Fatal(err)
		}
	}
	now := day.AddDate(0, 0, 30).Add(2 * time.Hour)
	if _, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pgstattuple`); err != nil {
		b.Fatal(err)
	}
	var dead int64
	for b.Loop() {
		b.StopTimer()
		reseedHistory(b, db, ids, per, now.Add(-2*time.Hour), -39*time.Minute)
		if rows {
			if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status,
					lease_owner, lease_expires_at)
				SELECT $1, t, t, 'MainAction', 'Running', 'elsewhere', t FROM generate_series($2::timestamptz, $3, interval '1 day') t`,
				ids[0], day.Add(time.Hour), now); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := db.Exec(`VACUUM ANALYZE job_history, job_history_details`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := store.Prune(ctx, now, models.Retention{HistoryPerJob: limit})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st.History != jobs*(per-limit) || (st.HistoryRewritten == 0) == !rows {
			b.Fatalf("pruned %d entries (%d by rewriting), want %d", st.History, st.HistoryRewritten, jobs*(per-limit))
		}
		var n int64
		if err := db.QueryRow(`SELECT sum((pgstattuple(i.inhrelid)).dead_tuple_count) FROM pg_inherits i
			WHERE i.inhparent IN ('job_history'::regclass, 'job_history_details'::regclass)`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		dead += n
		b.StartTimer()
	}
	b.ReportMetric(float64(dead)/float64(b.N), "dead-rows")
}

// BenchmarkRetentionPerJobBigDay: the per-job limit on one big closed day
// (1,000 jobs × 1,100 entries with their details, limit 900: 200,000 of
// 1,100,000 entries go, 900,000 are copied) while a writer adds a history
// entry to another day every 10 ms. Besides the Prune's time,
// max-write-wait-ms is the writer's longest statement: how long the
// rewrite's swap held the history. Run with -benchtime 1x (seeding takes
// about 30 s).
func BenchmarkRetentionPerJobBigDay(b *testing.B) {
	const jobs, per, limit = 1000, 1100, 900
	day := time.Date(2031, 6, 1, 0, 0, 0, 0, time.UTC)
	store, db, coll := partitionedStore(b, day)
	ctx := context.Background()
	ids := insertJobs(b, store, coll.ID, jobs)
	writer := insertJob(b, store, coll.ID, "writer")
	var worst time.Duration
	for b.Loop() {
		b.StopTimer()
		reseedHistory(b, db, ids, per, day, 78*time.Second)
		if _, err := db.Exec(`VACUUM ANALYZE job_history, job_history_details`); err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		waits := make(chan time.Duration, 1)
		go func() {
			var longest time.Duration
			defer func() { waits <- longest }()
			for {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				t0 := time.Now()
				if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status)
					VALUES ($1, $2, $2, $2, 'MainAction', 'Completed')`, writer, day.AddDate(0, 0, 3)); err != nil {
					b.Error(err)
					return
				}
				longest = max(longest, time.Since(t0))
			}
		}()
		b.StartTimer()
		st, err := store.Prune(ctx, day.AddDate(0, 0, 2), models.Retention{HistoryPerJob: limit})
		b.StopTimer()
		close(stop)
		worst = max(worst, <-waits)
		if err != nil {
			b.Fatal(err)
		}
		if st.History != jobs*(per-limit) || st.HistoryRewritten != st.History {
			b.Fatalf("pruned %d entries (%d by rewriting), want %d, all by rewriting", st.History, st.HistoryRewritten, jobs*(per-limit))
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-write-wait-ms")
}

// reseedHistory empties the history, its details and history_hours, then
// stores per Completed entries with their details and hourly counts for
// each job of ids, the g-th (from 1) starting at base + g×step.
func reseedHistory(b *testing.B, db *sql.DB, ids []int64, per int, base time.Time, step time.Duration) {
	b.Helper()
	if _, err := db.Exec(`TRUNCATE job_history, job_history_details, history_hours`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`
		WITH h AS (
			INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
			SELECT j, x.t, x.t, x.t, 'MainAction', 'Completed', 'Http Action - Response from host ''127.0.0.1'': ''OK'''
			FROM unnest($1::bigint[]) j, generate_series(1, $2) g,
			     LATERAL (SELECT $3::timestamptz + g * $4::bigint * interval '1 microsecond') x(t)
			RETURNING id, start_time),
		`+benchDetailsAndHours,
		ids, per, base, step.Microseconds()); err != nil {
		b.Fatal(err)
	}
}
