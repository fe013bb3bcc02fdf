package models_test

import (
	"strings"
	"testing"
)

// TestStateIndexLeavesEnabledJobsOut: jobs_state_idx (migration 0028)
// holds only the jobs that are not enabled, so that the engine's updates of
// enabled jobs add no entry to it, and a filter on other states still uses
// it.
func TestStateIndexLeavesEnabledJobsOut(t *testing.T) {
	store, db := storeAndDB(t)
	coll := newCollection(t, store, "rg", "jc")
	for i, state := range []string{"enabled", "enabled", "disabled", "enabled"} {
		if _, err := db.Exec(`INSERT INTO jobs (job_collection_id, name, definition, state)
			VALUES ($1, $2, $3::json, $4)`, coll.ID, "j"+string(rune('a'+i)), storedDef, state); err != nil {
			t.Fatal(err)
		}
	}
	var def string
	if err := db.QueryRow(`SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_state_idx'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "WHERE (state <> 'enabled'::text)") {
		t.Errorf("jobs_state_idx = %s, want a partial index leaving enabled jobs out", def)
	}
	for _, q := range []string{
		`SELECT id FROM jobs WHERE state = 'disabled'`,
		`SELECT id FROM jobs WHERE state IN ('faulted', 'completed')`,
	} {
		if plan := planWithoutSeqScan(t, db, q); !strings.Contains(plan, "jobs_state_idx") {
			t.Errorf("%s: the plan does not use jobs_state_idx:\n%s", q, plan)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if _, err := tx.Exec(`SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(`SELECT count(*) FROM jobs WHERE state = 'disabled'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("disabled jobs through the index: %d, %v; want 1", n, err)
	}
}
