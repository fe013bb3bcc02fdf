package engine

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/testdb"
)

// BenchmarkNotifyBurst: 1,000 one-time jobs due in the same second all
// fail (HTTP 500, no retry), without and with an alert rule on the
// workspace sending occurrenceFaulted to a signed webhook (a loopback
// receiver that verifies every signature). One engine with the default
// configuration (32 notification senders). It reports the time from each
// history entry (the failed attempt's end, the event's time) to the
// receiver (p50, p99, max, in ms, and how many arrived), and the jobs'
// start lateness (p50, p99, max) from their history rows, and how long
// the attempts' results waited to be recorded (recorded-p99-ms: from the
// attempt's end to its batch's commit, history entry and notifications
// included). Run it with
//
//	go test ./scheduler/engine -run '^$' -bench NotifyBurst -benchtime 1x -timeout 30m
//
// With SKED_BENCH_TRACE=1 (and -v, else the log is cut) each run also
// logs its timeline and reports the CPU time the burst cost here and in
// PostgreSQL (burst-go-cpu-ms, burst-pg-cpu-ms: from the due time to the
// last attempt's start), and the statements that took the most time when
// the server preloads pg_stat_statements (notify_bench_trace_test.go).
func BenchmarkNotifyBurst(b *testing.B) {
	for _, rules := range []bool{false, true} {
		b.Run(fmt.Sprintf("rules=%v", rules), func(b *testing.B) {
			for b.Loop() {
				benchNotifyBurst(b, rules)
			}
		})
	}
}

func benchNotifyBurst(b *testing.B, rules bool) {
	const jobs = 1000
	dsn := testdb.DSN(b)
	// The production pool (20 connections), with the test secret key.
	store := testdb.Open(b, dsn, models.Options{PasswordCost: bcrypt.MinCost, SecretKeys: [][]byte{testdb.SecretKey}})
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	h := newHook(b, nil)
	h.seen = make(chan hookEvent, 2*jobs)
	sink := newTarget(b, failingPaths)
	coll := newCollection(b, store)
	ws := models.DefaultWorkspaceID
	if rules {
		addWebhook(b, store, ws, "hook", h.URL, h.secret)
		addRule(b, store, ws, "faults", `{"channel":"hook","events":["occurrenceFaulted"]}`)
	}
	// How long each result waited to be recorded (its history entry
	// committed), with and without rules.
	var mu sync.Mutex
	var recorded []time.Duration
	trace := newBurstTrace()
	trace.start(b, db)
	e, _ := startNotifyingLogged(b, store, Config{}, trace.logger(), func(batch []models.AttemptOutcome) {
		now := time.Now()
		trace.batch(now, len(batch))
		mu.Lock()
		for _, o := range batch {
			recorded = append(recorded, now.Sub(o.Now))
		}
		mu.Unlock()
	})
	// Scheduled by the engine (needs_schedule), all due at t0.
	t0 := time.Now().Add(5 * time.Second).Truncate(time.Second)
	_, err = db.Exec(`
		WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, needs_schedule, schedule_base)
		SELECT $1, 'f' || g,
		       json_build_object('startTime', to_char($2::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		                         'action', json_build_object('type', 'http',
		                             'request', json_build_object('uri', $3::text, 'method', 'GET'),
		                             'retryPolicy', json_build_object('retryType', 'none'))),
		       'enabled', true, now()
		FROM generate_series(1, $4) g
		RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`, coll.ID, t0, sink.URL+"/bad", jobs)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`SELECT pg_notify($1, '')`, models.NotifyChannel); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(3 * time.Minute)
	for range jobs {
		select {
		case <-e.done:
		case <-deadline:
			b.Fatal("the jobs did not all run within 3 minutes")
		}
	}
	var delays []time.Duration
	if rules {
		for len(delays) < jobs {
			select {
			case ev := <-h.seen:
				delays = append(delays, ev.At.Sub(ev.Event.Time))
				trace.received = append(trace.received, ev.At)
			case <-deadline:
				b.Fatalf("%d notifications of %d arrived within 3 minutes", len(delays), jobs)
			}
		}
	}
	if err := e.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
	var p50, p99, mx float64
	if err := db.QueryRow(`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness_ms),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness_ms), max(lateness_ms)
		FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE j.job_collection_id = $1`, coll.ID).Scan(&p50, &p99, &mx); err != nil {
		b.Fatal(err)
	}
	trace.report(b, db, t0, coll.ID)
	mu.Lock()
	slices.Sort(recorded)
	b.ReportMetric(float64(recorded[len(recorded)*99/100])/float64(time.Millisecond), "recorded-p99-ms")
	mu.Unlock()
	b.ReportMetric(p50, "late-p50-ms")
	b.ReportMetric(p99, "late-p99-ms")
	b.ReportMetric(mx, "late-max-ms")
	if rules {
		slices.Sort(delays)
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(float64(len(delays)), "delivered")
		b.ReportMetric(ms(delays[len(delays)/2]), "notify-p50-ms")
		b.ReportMetric(ms(delays[len(delays)*99/100]), "notify-p99-ms")
		b.ReportMetric(ms(delays[len(delays)-1]), "notify-max-ms")
		// Where the time goes: event → stored (the result writer's batch),
		// stored → sent (the outbox's queue and the send).
		var stored, sent float64
		if err := db.QueryRow(`SELECT
				percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - (event->>'time')::timestamptz) * 1000),
				percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at) * 1000)
			FROM notifications`).Scan(&stored, &sent); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(stored, "stored-p99-ms")
		b.ReportMetric(sent, "sent-p99-ms")
		if h.bad != 0 {
			b.Fatalf("%d deliveries did not verify", h.bad)
		}
	}
}
