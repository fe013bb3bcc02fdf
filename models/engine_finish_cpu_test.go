package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// BenchmarkFinishAttemptsServerCPU measures the PostgreSQL CPU that
// FinishAttempts costs per 1,000 outcomes (pg-cpu-s/1k): per iteration
// 2,000 new enabled jobs with one running attempt each, like the jobs of
// bench/river, are finished in batches of 100 with an exchange of the
// size the engine stores for a GET (masked headers, a short answer). Only
// the store's one backend is measured (its utime and stime, in ticks of
// 10 ms), not the setup nor the server's other processes, so that two
// variants of the statement compare on a loaded machine. Its cases are
// the two kinds of running attempt: records (a running history row, which
// the finish updates into its entry: what the claim starts) and attempts
// (a job_attempts row, which the finish deletes, inserting the entry: an
// attempt started from a pending one, or by a release before migration
// 0041). A third case, records without an exchange (their details rows
// hold no request or response, as for an attempt that sent nothing),
// tells what storing the exchange costs. Run it with
// `go test ./models/ -run '^$' -bench FinishAttemptsServerCPU -benchtime 5x`.
func BenchmarkFinishAttemptsServerCPU(b *testing.B) {
	b.Run("rows=records", func(b *testing.B) { benchFinishCPU(b, true, true) })
	b.Run("rows=records/exchange=none", func(b *testing.B) { benchFinishCPU(b, true, false) })
	b.Run("rows=attempts", func(b *testing.B) { benchFinishCPU(b, false, true) })
}

// benchFinishCPU is BenchmarkFinishAttemptsServerCPU for records or
// job_attempts rows, with a GET's exchange or none.
func benchFinishCPU(b *testing.B, records, exchange bool) {
	const jobs, batch = 2000, 100
	store, db := storeAndDBWith(b, models.Options{MaxOpenConns: 1})
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "owner", Password: "password123"}); err != nil {
		b.Fatal(err)
	}
	coll := &models.JobCollection{Name: "cpu"}
	if err := store.CreateCollection(ctx, models.DefaultWorkspaceID, "rg", coll); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Truncate(time.Second)
	var cpu float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ids, hids := runningAttempts(b, db, coll.ID, i, jobs, t0, records)
		before := backendTicks(b, db)
		b.StartTimer()
		for k := 0; k < len(ids); k += batch {
			outs := make([]models.AttemptOutcome, 0, batch)
			for n, id := range ids[k:min(k+batch, len(ids))] {
				o := models.AttemptOutcome{AttemptID: id, HistoryID: hids[k+n], HistoryStart: t0, Owner: "bench", Now: t0.Add(time.Second),
					Succeeded: true, Message: "Http Action - Response from host '127.0.0.1': 'OK'"}
				if exchange {
					o.Exchange = benchExchange(id, t0)
				}
				outs = append(outs, o)
			}
			res, err := store.FinishAttempts(ctx, outs)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res {
				if !r.Recorded {
					b.Fatalf("attempt %d not recorded", r.AttemptID)
				}
			}
		}
		b.StopTimer()
		cpu += backendTicks(b, db) - before
		b.StartTimer()
	}
	b.ReportMetric(cpu/100*1000/float64(b.N*jobs), "pg-cpu-s/1k")
}

// runningAttempts stores n new enabled minute jobs (round i) with one
// running attempt each, owned by "bench", and returns the attempts' ids and
// their history rows' ids: records (running history rows), or
// job_attempts rows (history ids 0).
func runningAttempts(b testing.TB, db *sql.DB, collID int64, i, n int, t0 time.Time, records bool) (ids, hids []int64) {
	b.Helper()
	insert := `INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner,
			lease_expires_at, started_at)
		SELECT id, $3, 'MainAction', 1, 1, 'running', $3, 'bench', $3::timestamptz + interval '1 hour', $3 FROM j
		RETURNING id, 0::bigint`
	if records {
		insert = `INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status, repeat_count,
			lateness_ms, attempt_id, lease_owner, lease_expires_at, due_at)
		SELECT id, $3, $3, 'MainAction', 'Running', 1, 0, nextval('job_attempts_id_seq'), 'bench',
			$3::timestamptz + interval '1 hour', $3 FROM j
		RETURNING attempt_id, id`
	}
	rows, err := db.Query(`
		WITH j AS (
			INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
			SELECT $1, 'r' || $2::int || '-' || g,
			       json_build_object('startTime', '2026-01-01T00:00:00Z', 'recurrence', json_build_object('frequency', 'minute'),
			           'action', json_build_object('type', 'http',
			               'request', json_build_object('uri', 'http://127.0.0.1:40000/?k=' || g, 'method', 'GET'),
			               'retryPolicy', json_build_object('retryType', 'none'))),
			       'enabled', $3::timestamptz + interval '1 minute', $3
			FROM generate_series(1, $4) g
			RETURNING id),
		r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
		`+insert, collID, i, t0, n)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, hid int64
		if err := rows.Scan(&id, &hid); err != nil {
			b.Fatal(err)
		}
		ids, hids = append(ids, id), append(hids, hid)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`ANALYZE jobs, job_results, job_attempts, job_history`); err != nil {
		b.Fatal(err)
	}
	return ids, hids
}

// benchExchange is an exchange the size of the engine's for a GET.
func benchExchange(id int64, t0 time.Time) *models.Exchange {
	h := func(kv ...string) []models.HeaderField {
		var out []models.HeaderField
		for i := 0; i < len(kv); i += 2 {
			out = append(out, models.HeaderField{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tag := strconv.FormatInt(id, 10)
	return &models.Exchange{SentAt: t0, IdempotencyKey: "sked-" + tag,
		Request: models.ExchangeRequest{Method: "GET", URL: "http://127.0.0.1:40000/?k=" + tag,
			Headers: h("User-Agent", "Sked", "x-ms-execution-tag", tag, "x-ms-client-request-id", "8d1c6f3e-4b2a-4c1e-9f0a-"+tag,
				"x-ms-scheduler-expected-execution-time", t0.Format(time.RFC3339), "x-ms-scheduler-jobid", "cpu/r-"+tag,
				"x-ms-scheduler-jobcollectionid", "rg/cpu", "x-ms-scheduler-regionid", "local", "Idempotency-Key", "sked-"+tag)},
		Response: &models.ExchangeResponse{Status: 200, StatusText: "OK", Body: "ok",
			Headers: h("Content-Length", "2", "Content-Type", "text/plain; charset=utf-8", "Date", t0.Format(time.RFC1123))}}
}

// backendTicks returns the CPU ticks (utime + stime, 1/100 s) used so far
// by the backends of db's database other than db's own connections.
func backendTicks(b *testing.B, db *sql.DB) float64 {
	b.Helper()
	rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
		AND backend_type = 'client backend'`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var total float64
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Fatal(err)
		}
		f := strings.Fields(string(s)[strings.LastIndexByte(string(s), ')')+2:])
		for _, v := range f[11:13] {
			t, _ := strconv.ParseFloat(v, 64)
			total += t
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return total
}
