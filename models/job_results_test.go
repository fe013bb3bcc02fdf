package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
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

// TestFailedFilterReadsTheLastFailure: "failed in the last 24 h" keeps a
// job that failed 23 h ago and not one that failed 25 h ago; a later
// success does not hide a failure within the 24 h, nor does retention
// deleting the failed entry (job_results.last_failed_at, migrations 0024 and 0029).
func TestFailedFilterReadsTheLastFailure(t *testing.T) {
	f := newSearchFixture(t)
	now := time.Now()
	f.history(f.byName["invoice-run"], now.Add(-23*time.Hour), "Failed", "MainAction", 0)
	f.history(f.byName["Dunning"], now.Add(-25*time.Hour), "Failed", "MainAction", 0)
	f.history(f.byName["Dunning"], now.Add(-2*time.Hour), "Completed", "MainAction", 0)
	f.history(f.byName["weekly-report"], now.Add(-3*time.Hour), "Failed", "MainAction", 0)
	f.history(f.byName["weekly-report"], now.Add(-time.Hour), "Completed", "MainAction", 0)
	f.history(f.byName["cleanup"], now.Add(-time.Hour), "Postponed", "MainAction", 0)
	since := models.JobSearchParams{FailedSince: now.Add(-24 * time.Hour)}
	want := []string{"invoice-run", "weekly-report"}
	if got := f.search(since); !slices.Equal(got, want) {
		t.Errorf("failed in 24 h: got %v, want %v", got, want)
	}
	for _, sort := range models.JobSorts {
		p := since
		p.Sort = sort
		if got := f.search(p); !slices.Equal(got, want) {
			t.Errorf("sort %s: got %v, want %v", sort, got, want)
		}
	}
	// Retention keeps one entry per job: weekly-report's failure is
	// deleted, and the job still failed 3 h ago.
	if _, err := f.store.Prune(f.ctx, now, models.Retention{HistoryPerJob: 1}); err != nil {
		t.Fatal(err)
	}
	if got := f.search(since); !slices.Equal(got, want) {
		t.Errorf("after retention: got %v, want %v", got, want)
	}
}

// TestLastFailedFollowsEveryFailedWriter: the engine's result statement
// (a batch with a failure and a later success of one job), an interrupted
// attempt (its lease expired) and a re-run that fails each set
// job_results.last_failed_at to the start of the newest Failed entry; successes
// and postponed occurrences leave it.
func TestLastFailedFollowsEveryFailedWriter(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// job is an enabled job whose next run is far off: its occurrences
	// ending do not end it.
	job := func(name string) int64 {
		var id int64
		if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, needs_schedule, next_run_at)
			VALUES ($1, $2, $3::jsonb, 'enabled', false, $4) RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll.ID, name, storedDef, t0.AddDate(1, 0, 0)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	running := func(jobID int64, started time.Time, n int) int64 {
		var id int64
		if err := db.QueryRow(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				lease_owner, lease_expires_at, started_at)
			VALUES ($1, $2, 'MainAction', 1, $3, 'running', $2, 'me', $2::timestamptz + interval '1 hour', $2) RETURNING id`,
			jobID, started, n).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	finish := func(outs ...models.AttemptOutcome) {
		t.Helper()
		res, err := store.FinishAttempts(ctx, outs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !r.Recorded {
				t.Fatalf("attempt %d not recorded", r.AttemptID)
			}
		}
	}
	// check compares the job's last failure with want and with the newest
	// Failed entry of its history.
	check := func(what string, jobID int64, want *time.Time) {
		t.Helper()
		var got, newest sql.NullTime
		if err := db.QueryRow(`SELECT last_failed_at, (SELECT max(start_time) FROM job_history
				WHERE job_id = r.job_id AND status = 'Failed') FROM job_results r WHERE job_id = $1`, jobID).Scan(&got, &newest); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			if got.Valid {
				t.Errorf("%s: last_failed_at %v, want none", what, got.Time)
			}
			return
		}
		if !got.Valid || !got.Time.Equal(*want) || !newest.Valid || !newest.Time.Equal(got.Time) {
			t.Errorf("%s: last_failed_at %v, newest Failed entry %v, want %v", what, got, newest, *want)
		}
	}

	// The engine's result statement: one batch, a failure and a later
	// success of the same job, and a job that only succeeds.
	batch, clean := job("batch"), job("clean")
	b1, b2, c1 := running(batch, t0, 1), running(batch, t0.Add(time.Minute), 2), running(clean, t0, 1)
	end := t0.Add(2 * time.Minute)
	finish(models.AttemptOutcome{AttemptID: b2, Owner: "me", Now: end, Succeeded: true},
		models.AttemptOutcome{AttemptID: b1, Owner: "me", Now: end, Message: "500"},
		models.AttemptOutcome{AttemptID: c1, Owner: "me", Now: end, Succeeded: true})
	check("engine result, later success in the batch", batch, &t0)
	check("engine result, successes only", clean, nil)
	b3 := running(batch, t0.Add(5*time.Minute), 3)
	finish(models.AttemptOutcome{AttemptID: b3, Owner: "me", Now: t0.Add(6 * time.Minute), Succeeded: true})
	check("engine result, a later batch's success", batch, &t0)

	// An interrupted attempt: its lease ran out, another engine records it.
	lost := job("lost")
	started := t0.Add(10 * time.Minute)
	l1 := running(lost, started, 1)
	finish(models.AttemptOutcome{AttemptID: l1, Owner: "other", Expired: true, Now: started.Add(2 * time.Hour), Message: "interrupted"})
	check("interrupted", lost, &started)

	// A re-run of that failure, claimed and failed again.
	var entry int64
	if err := db.QueryRow(`SELECT id FROM job_history WHERE job_id = $1 AND status = 'Failed'`, lost).Scan(&entry); err != nil {
		t.Fatal(err)
	}
	rerunAt := started.Add(3 * time.Hour)
	a, err := store.Rerun(ctx, lost, entry, "alice", rerunAt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ClaimDue(ctx, models.ClaimRequest{Now: rerunAt, Owner: "me", Limit: 10,
		Plan:  func(*models.EngineJob) *models.JobPlan { return nil },
		Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }})
	if err != nil || len(got) != 1 || got[0].ID != a {
		t.Fatalf("claim of the re-run: %v %+v", err, got)
	}
	finish(models.AttemptOutcome{AttemptID: a, Owner: "me", Now: rerunAt.Add(time.Second), Message: "500"})
	check("re-run", lost, &rerunAt)
	var rerunOf sql.NullInt64
	if err := db.QueryRow(`SELECT rerun_of FROM job_history WHERE job_id = $1 AND start_time = $2`, lost, rerunAt).Scan(&rerunOf); err != nil ||
		rerunOf.Int64 != entry {
		t.Errorf("the re-run's entry: rerun_of %v, %v", rerunOf, err)
	}

	// A postponed occurrence written by the engine's plan leaves it.
	postponed := job("postponed")
	if _, err := db.Exec(`UPDATE jobs SET next_run_at = $2 WHERE id = $1`, postponed, t0); err != nil {
		t.Fatal(err)
	}
	next := t0.Add(time.Hour)
	if _, err := store.ClaimDue(ctx, models.ClaimRequest{Now: t0, Owner: "me", Limit: 10,
		Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour },
		Plan: func(j *models.EngineJob) *models.JobPlan {
			return &models.JobPlan{NextRunAt: &next, Postponed: []models.HistoryEntry{{StartTime: t0, ExpectedExecutionTime: t0,
				ActionName: models.MainAction, Status: models.StatusPostponed, Message: "missed"}}}
		}}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM job_history WHERE job_id = $1 AND status = 'Postponed'`, postponed).Scan(&n); err != nil || n != 1 {
		t.Fatalf("postponed entries %d, %v", n, err)
	}
	check("postponed", postponed, nil)
}
