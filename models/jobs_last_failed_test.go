package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

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
