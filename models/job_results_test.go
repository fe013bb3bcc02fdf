package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// TestEveryStoredJobHasResults: every way the store inserts jobs (SaveJob,
// SaveJobs, an import of more than one statement's chunk) gives
// each job its job_results row in the same transaction (migration 0029),
// and a job written again keeps its results.
func TestEveryStoredJobHasResults(t *testing.T) {
	f := newPagesFixture(t)
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := f.collection("default", "results", "Enabled")
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	def := []byte(facetDef("https://one.example/", "", ""))
	j, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "Alpha", Definition: def, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SaveJobs(f.ctx, []models.JobWrite{
		{CollectionID: c.ID, Name: "Beta", Definition: def, Now: now},
		{CollectionID: c.ID, Name: "Gamma", Definition: def, State: "disabled", Now: now},
	}); err != nil {
		t.Fatal(err)
	}
	var batch models.ImportBatch
	batch.Collections = []models.ImportCollection{{Ref: models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "imported"}}}
	for i := range 1500 {
		batch.Jobs = append(batch.Jobs, models.ImportJob{Write: models.JobWrite{Name: fmt.Sprintf("Imp-%d", i), Definition: def, Now: now}})
	}
	if _, err := f.store.ApplyImport(f.ctx, batch); err != nil {
		t.Fatal(err)
	}
	saveJob(t, f.store, models.JobWrite{CollectionID: c.ID, Name: "Put", Definition: json.RawMessage(storedDef)})
	var jobs, missing int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM job_results r WHERE r.job_id = j.id))
		FROM jobs j`).Scan(&jobs, &missing); err != nil {
		t.Fatal(err)
	}
	if jobs != 1504 || missing != 0 {
		t.Errorf("%d jobs stored, %d without results; want 1504, 0", jobs, missing)
	}

	// Alpha has run: written again (SaveJob, SaveJobs), it keeps its results.
	if _, err := db.Exec(`UPDATE job_results SET execution_count = 12, failure_count = 3, faulted_count = 1,
		last_status = 'Failed', last_status_at = $2 WHERE job_id = $1`, j.ID, now); err != nil {
		t.Fatal(err)
	}
	again, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "alpha", Definition: def, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != j.ID || again.ExecutionCount != 12 || again.FailureCount != 3 || again.FaultedCount != 1 {
		t.Errorf("SaveJob of a job that ran: %+v, want its results 12, 3, 1", again)
	}
	if _, err := f.store.SaveJobs(f.ctx, []models.JobWrite{{CollectionID: c.ID, Name: "ALPHA", Definition: json.RawMessage(storedDef)}}); err != nil {
		t.Fatal(err)
	}
	read, err := f.store.JobByID(f.ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.ExecutionCount != 12 || read.FailureCount != 3 || read.FaultedCount != 1 {
		t.Errorf("JobByID after SaveJobs: %d, %d, %d; want 12, 3, 1", read.ExecutionCount, read.FailureCount, read.FaultedCount)
	}
}

// TestResultsLeaveTheJobRow: recording results (FinishAttempts) writes
// the job's job_results row and never a new version of its jobs row (its
// xmin stays), so the engine's result does not copy the definition nor
// add entries to jobs' indexes.
func TestResultsLeaveTheJobRow(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: "r", Definition: json.RawMessage(storedDef)})
	xmin := func() string {
		t.Helper()
		var x string
		if err := db.QueryRow(`SELECT xmin::text FROM jobs WHERE id = $1`, j.ID).Scan(&x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	// The job stays scheduled (its next run a year off), so that no
	// result ends it (which writes its state).
	far := t0.AddDate(1, 0, 0)
	plan := func(*models.EngineJob) *models.JobPlan { return &models.JobPlan{NextRunAt: &far} }
	lease := func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }
	for i, ok := range []bool{true, false, true} {
		at := t0.Add(time.Duration(i) * time.Minute)
		a, err := store.RunNow(ctx, j.ID, at)
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.ClaimDue(ctx, models.ClaimRequest{Now: at, Owner: "inst", Limit: 10, Plan: plan, Lease: lease})
		if err != nil || len(got) != 1 || got[0].ID != a {
			t.Fatalf("claim %d: %+v %v", i, got, err)
		}
		id := a
		before := xmin()
		res, err := store.FinishAttempts(ctx, []models.AttemptOutcome{{AttemptID: id, Owner: "inst", Now: at.Add(time.Second),
			Succeeded: ok, Message: "done"}})
		if err != nil || len(res) != 1 || !res[0].Recorded {
			t.Fatalf("finish %d: %+v %v", i, res, err)
		}
		if after := xmin(); after != before {
			t.Errorf("result %d rewrote the jobs row (xmin %s → %s)", i, before, after)
		}
	}
	var exec, failed int64
	var status string
	var lastFailed time.Time
	if err := db.QueryRow(`SELECT execution_count, failure_count, last_status, last_failed_at FROM job_results WHERE job_id = $1`,
		j.ID).Scan(&exec, &failed, &status, &lastFailed); err != nil {
		t.Fatal(err)
	}
	if exec != 3 || failed != 1 || status != "Completed" || !lastFailed.Equal(t0.Add(time.Minute)) {
		t.Errorf("results %d executions, %d failures, last %s, last failed %v; want 3, 1, Completed, %v",
			exec, failed, status, lastFailed, t0.Add(time.Minute))
	}
}

// TestJobsWithResultsPlans: the view reads jobs alone when a query uses
// none of the results (the planner removes its left join), and the
// "most failures first" page walks job_results_failures_idx, its keyset
// included.
func TestJobsWithResultsPlans(t *testing.T) {
	_, db := storeAndDB(t)
	plan := planWithoutSeqScan(t, db, `SELECT j.id, j.name, j.next_run_at FROM jobs_with_results j WHERE j.job_collection_id = 1`)
	if strings.Contains(plan, "job_results") {
		t.Errorf("a read of jobs' own columns joins job_results:\n%s", plan)
	}
	for _, q := range []string{
		`SELECT j.id FROM jobs_with_results j WHERE j.result_id IS NOT NULL
			ORDER BY j.failure_count DESC, j.result_id DESC LIMIT 50`,
		`SELECT j.id FROM jobs_with_results j WHERE j.result_id IS NOT NULL AND (j.failure_count, j.result_id) < (3, 1000)
			ORDER BY j.failure_count DESC, j.result_id DESC LIMIT 50`,
	} {
		plan := planWithoutSeqScan(t, db, q)
		if !strings.Contains(plan, "job_results_failures_idx") || strings.Contains(plan, "Sort") {
			t.Errorf("the failures order does not walk job_results_failures_idx:\n%s", plan)
		}
	}
}
