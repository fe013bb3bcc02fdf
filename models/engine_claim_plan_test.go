package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// TestStartOccurrencesFindsJobsOnTheirKey: the claim's statement that
// starts many jobs' occurrences at once finds the jobs it advances on
// their primary key. The planner cannot see into the batch (a json
// parameter, which it takes for 100 rows); joined to jobs on the id
// alone, a hash join over a scan of the whole table looked cheaper while
// the table fits in a few hundred pages, and every claim read every job.
func TestStartOccurrencesFindsJobsOnTheirKey(t *testing.T) {
	store, db := storeAndDB(t)
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Exec(`
		WITH j AS (
			INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
			SELECT $1, 'y' || g, $2::json, 'enabled', $3::timestamptz + g * interval '1 second', $3
			FROM generate_series(1, 5000) g RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`, coll.ID, storedDef, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ANALYZE jobs`); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err := db.Query(`SELECT id FROM jobs ORDER BY next_run_at LIMIT 200`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	type plan struct {
		ID      int64     `json:"id"`
		Next    time.Time `json:"next"`
		Sched   int64     `json:"sched"`
		Occ     int64     `json:"occ"`
		RunAt   time.Time `json:"run_at"`
		DueAt   time.Time `json:"due_at"`
		LeaseUS int64     `json:"lease_us"`
	}
	batch := make([]plan, len(ids))
	for i, id := range ids {
		batch[i] = plan{ID: id, Next: t0.Add(time.Hour), Sched: 1, RunAt: t0, DueAt: t0, LeaseUS: 60_000_000}
	}
	data, err := json.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	explain := func(stmt string) string {
		t.Helper()
		for n := 1; strings.Contains(stmt, "?"); n++ {
			stmt = strings.Replace(stmt, "?", fmt.Sprintf("$%d", n), 1)
		}
		rows, err := db.QueryContext(context.Background(), `EXPLAIN (COSTS OFF) `+stmt,
			string(data), "inst", t0, t0, false, "inst", t0, false, t0)
		return planLines(t, rows, err)
	}
	const byKey = "j.id = ANY (ARRAY(SELECT id FROM p)) AND "
	if !strings.Contains(models.StartOccurrencesSQL, byKey) {
		t.Fatalf("the statement no longer names the jobs by key:\n%s", models.StartOccurrencesSQL)
	}
	if p := explain(strings.Replace(models.StartOccurrencesSQL, byKey, "", 1)); !strings.Contains(p, "Seq Scan on jobs") {
		t.Fatalf("the case this test guards against no longer arises (joined on the id alone, jobs is not scanned):\n%s", p)
	}
	p := explain(models.StartOccurrencesSQL)
	if strings.Contains(p, "Seq Scan on jobs") || !strings.Contains(p, "jobs_pkey on jobs j") {
		t.Errorf("the statement does not find the jobs on their key:\n%s", p)
	}
}
