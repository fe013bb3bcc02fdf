package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// TestFinishStatementPlanOnAYoungTable: FinishAttempts' statement is
// prepared, and the plan a connection caches for it is made from
// job_attempts' statistics at that time. Made while they described an
// empty table (a new installation, a benchmark's start) and kept while
// the table grows (autovacuum analyzes it a minute later at the
// earliest), the plan scans the whole table per batch and compares every
// row with the batch's ids. With sequential scans off, as FinishAttempts
// runs it, the same cached plan finds the attempts on the primary key.
func TestFinishStatementPlanOnAYoungTable(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	if _, err := db.Exec(`ANALYZE job_attempts`); err != nil {
		t.Fatal(err)
	}
	// Two connections prepare the statement while the table is empty, as
	// an engine's connections do in their first batches; one with
	// sequential scans off. Each caches its plan.
	stmt := strings.Replace(strings.Replace(strings.Replace(models.RecordOutcomesSQL, "?::jsonb", "$1::jsonb", 1),
		"?::timestamptz", "$2::timestamptz", 1), "?::timestamptz", "$3::timestamptz", 1)
	prepare := func(seqscan string) *sql.Conn {
		t.Helper()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `SET enable_seqscan = ` + seqscan,
			`PREPARE finish (jsonb, timestamptz, timestamptz) AS ` + stmt, `EXECUTE finish ('[]', 'epoch', 'epoch')`} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return conn
	}
	on, off := prepare("on"), prepare("off")
	// Then the table grows, its statistics unchanged.
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Exec(`
		WITH j AS (
			INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
			SELECT $1, 'y' || g, $2::json, 'enabled', $3::timestamptz + interval '1 minute', $3
			FROM generate_series(1, 2000) g RETURNING id),
		r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
		INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner,
			lease_expires_at, started_at)
		SELECT id, $3, 'MainAction', 1, 1, 'running', $3, 'inst', $3::timestamptz + interval '1 hour', $3 FROM j`,
		coll.ID, storedDef, t0); err != nil {
		t.Fatal(err)
	}
	plan := func(conn *sql.Conn) string {
		t.Helper()
		rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE finish ('[]', 'epoch', 'epoch')`)
		return planLines(t, rows, err)
	}
	if p := plan(on); !strings.Contains(p, "Seq Scan on job_attempts") {
		t.Fatalf("the case this test guards against no longer arises (no scan of job_attempts in the cached plan):\n%s", p)
	}
	if p := plan(off); strings.Contains(p, "Seq Scan on job_attempts") || !strings.Contains(p, "job_attempts_pkey") {
		t.Errorf("with sequential scans off, the cached plan still scans job_attempts:\n%s", p)
	}
}

// TestFinishStatementPlannedOnce: FinishAttempts' statement is planned
// once per connection (a generic plan from its first execution on), not
// anew for its first five executions as PostgreSQL plans a prepared
// statement by default (custom plans), and the settings it runs with do not outlast it in the
// transaction that records the results (a claim's goes on).
func TestFinishStatementPlannedOnce(t *testing.T) {
	store, db := storeAndDBWith(t, models.Options{MaxOpenConns: 1})
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ids, hids := runningAttempts(t, db, coll.ID, 0, 8, t0, true)
	hid := map[int64]int64{}
	for i, id := range ids {
		hid[id] = hids[i]
	}
	outcome := func(id int64) models.AttemptOutcome {
		return models.AttemptOutcome{AttemptID: id, HistoryID: hid[id], HistoryStart: t0, Owner: "bench", Now: t0.Add(time.Second), Succeeded: true,
			Message: "OK", Exchange: benchExchange(id, t0)}
	}
	for _, id := range ids[:7] {
		res, err := store.FinishAttempts(ctx, []models.AttemptOutcome{outcome(id)})
		if err != nil {
			t.Fatal(err)
		}
		if !res[0].Recorded {
			t.Fatalf("attempt %d not recorded", id)
		}
	}
	generic, custom, err := store.PreparedPlans(ctx, "jsonb_to_recordset")
	if err != nil {
		t.Fatal(err)
	}
	// generic_plans counts the executions that used the generic plan,
	// custom_plans the custom plans made (one per execution).
	if custom != 0 || generic != 7 {
		t.Errorf("7 batches on one connection: %d custom plans made and %d executions with the generic plan, want 0 and 7",
			custom, generic)
	}
	seqscan, mode, err := store.SettingsAfterFinish(ctx, []models.AttemptOutcome{outcome(ids[7])})
	if err != nil {
		t.Fatal(err)
	}
	if seqscan != "on" || mode != "auto" {
		t.Errorf("after the results, the transaction runs with enable_seqscan %s and plan_cache_mode %s, want on and auto",
			seqscan, mode)
	}
}

// TestFinishReadsOneHistoryPartition: the end of a record finds its row in
// the one partition of the history that its start time names (migration
// 0042), not by probing every day's partition on the id.
func TestFinishReadsOneHistoryPartition(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2031, 5, 3, 10, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{t0.AddDate(0, 0, -8), t0} { // 16 days of partitions
		if _, err := store.EnsureHistoryPartitions(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	ids, hids := runningAttempts(t, db, coll.ID, 0, 4, t0, true)
	batch := `[`
	for i := range ids {
		if i > 0 {
			batch += ","
		}
		batch += fmt.Sprintf(`{"id": %d, "hid": %d, "hst": %q, "owner": "bench", "expired": false, "fin": %q, "ok": true, "msg": "OK", "ended": true}`,
			ids[i], hids[i], t0.Format(time.RFC3339Nano), t0.Add(time.Second).Format(time.RFC3339Nano))
	}
	batch += `]`
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	stmt := strings.Replace(strings.Replace(strings.Replace(models.RecordOutcomesSQL, "?::jsonb", "$1::jsonb", 1),
		"?::timestamptz", "$2::timestamptz", 1), "?::timestamptz", "$3::timestamptz", 1)
	if _, err := conn.ExecContext(ctx, `PREPARE finish (jsonb, timestamptz, timestamptz) AS `+stmt); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE finish ('%s', '%s', '%s')`,
		batch, t0.Format(time.RFC3339), t0.Format(time.RFC3339)))
	plan := planLines(t, rows, err)
	scanned := map[string]bool{}
	for line := range strings.Lines(plan) {
		if i := strings.Index(line, " on job_history_2"); i >= 0 && strings.Contains(line, "Index") && !strings.Contains(line, "never executed") {
			scanned[strings.Fields(line[i+4:])[0]] = true
		}
	}
	if len(scanned) != 1 || !scanned["job_history_20310503"] {
		t.Errorf("the end of records on 2031-05-03 read the partitions %v, want job_history_20310503 only:\n%s", scanned, plan)
	}
	if !strings.Contains(plan, "Subplans Removed: 24") {
		t.Errorf("the plan does not leave out the 24 other partitions when it starts:\n%s", plan)
	}
	if !strings.Contains(plan, "Update on job_history t_1 (actual rows=4") {
		t.Errorf("the records were not updated:\n%s", plan)
	}
}
