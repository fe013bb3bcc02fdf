package models_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// TestClaimRecordsOutcomesBeforeClaiming: a claim carrying attempt results
// (ClaimRequest.Outcomes) records them as FinishAttempts would (attempt
// status, history, the job's counters), in its transaction and before it
// plans: the jobs it then plans show no open attempt, and it starts their
// next occurrences. When the claim fails, none of the results is
// recorded. ClaimDue ignores Outcomes.
func TestClaimRecordsOutcomesBeforeClaiming(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var ids []int64
	for _, name := range []string{"ok", "fails"} {
		var id int64
		if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, schedule_base)
			VALUES ($1, $2, $3::jsonb, 'enabled', $4, $4) RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll.ID, name, storedDef, t0).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	lease := func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }
	// open records, per job planned, how many attempts it had open.
	open := map[int64]int64{}
	claimAt := func(now time.Time, outcomes []models.AttemptOutcome, plan func(*models.EngineJob)) (models.ClaimResult, error) {
		clear(open)
		return store.Claim(ctx, models.ClaimRequest{Now: now, Owner: "inst", Limit: 10, Lease: lease, Outcomes: outcomes,
			Plan: func(j *models.EngineJob) *models.JobPlan {
				open[j.ID] = j.OpenAttempts
				if plan != nil {
					plan(j)
				}
				next := now.Add(time.Minute)
				return &models.JobPlan{NextRunAt: &next, ScheduledCount: j.ScheduledCount + 1,
					Run: &models.PlannedRun{ExpectedTime: now, Lease: time.Hour}}
			}})
	}
	first, err := claimAt(t0, nil, nil)
	if err != nil || len(first.Attempts) != 2 || len(first.Finished) != 0 {
		t.Fatalf("first claim: %v, %d attempts, %d finished; want 2 and 0", err, len(first.Attempts), len(first.Finished))
	}
	outcomes := make([]models.AttemptOutcome, 2)
	for i, a := range first.Attempts {
		ok := a.JobID == ids[0]
		outcomes[i] = models.AttemptOutcome{AttemptID: a.ID, HistoryID: a.HistoryID, HistoryStart: a.StartedAt, Owner: "inst", Now: t0.Add(time.Second), Succeeded: ok,
			Message: "done", Faulted: !ok, OccurrenceFaulted: !ok}
	}
	t1 := t0.Add(time.Minute)

	// A claim that fails after recording (its context ends while it
	// plans) records nothing.
	cctx, cancel := context.WithCancel(ctx)
	_, err = store.Claim(cctx, models.ClaimRequest{Now: t1, Owner: "inst", Limit: 10, Lease: lease, Outcomes: outcomes,
		Plan: func(j *models.EngineJob) *models.JobPlan { cancel(); return nil }})
	cancel()
	if err == nil {
		t.Fatal("a claim whose context ended while it planned succeeded")
	}
	var running, entries int
	db.QueryRow(`SELECT count(*) FROM job_history WHERE status = 'Running'`).Scan(&running)
	db.QueryRow(`SELECT count(*) FROM job_history WHERE status <> 'Running'`).Scan(&entries)
	if running != 2 || entries != 0 {
		t.Fatalf("after the failed claim: %d attempts running, %d history entries; want 2 and 0", running, entries)
	}

	// ClaimDue ignores the outcomes.
	if _, err := store.ClaimDue(ctx, models.ClaimRequest{Now: t0, Owner: "inst", Limit: 10, Lease: lease, Outcomes: outcomes,
		Plan: func(*models.EngineJob) *models.JobPlan { t.Error("nothing is due at t0 any more"); return nil }}); err != nil {
		t.Fatal(err)
	}
	db.QueryRow(`SELECT count(*) FROM job_history WHERE status <> 'Running'`).Scan(&entries)
	if entries != 0 {
		t.Fatalf("ClaimDue recorded %d history entries, want none", entries)
	}

	second, err := claimAt(t1, outcomes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Finished) != 2 || !second.Finished[0].Recorded || !second.Finished[1].Recorded {
		t.Fatalf("finished %+v, want both recorded", second.Finished)
	}
	if len(second.Attempts) != 2 {
		t.Fatalf("second claim started %d attempts, want the 2 next occurrences", len(second.Attempts))
	}
	for _, id := range ids {
		if open[id] != 0 {
			t.Errorf("job %d planned with %d open attempts: the claim did not see the results it recorded", id, open[id])
		}
	}
	for i, id := range ids {
		h, err := store.History(ctx, models.HistoryQuery{JobID: id, Limit: 10})
		if err != nil || len(h) != 1 {
			t.Fatalf("job %d: history %+v (%v), want 1 entry", id, h, err)
		}
		want := models.StatusCompleted
		if i == 1 {
			want = models.StatusFailed
		}
		if h[0].Status != want {
			t.Errorf("job %d: history status %s, want %s", id, h[0].Status, want)
		}
		var exec, failed, faulted int64
		db.QueryRow(`SELECT execution_count, failure_count, faulted_count FROM job_results WHERE job_id = $1`, id).Scan(&exec, &failed, &faulted)
		wantFailed := int64(i)
		if exec != 1 || failed != wantFailed || faulted != wantFailed {
			t.Errorf("job %d counters: %d executions, %d failures, %d faulted; want 1, %d, %d", id, exec, failed, faulted, wantFailed, wantFailed)
		}
	}
	db.QueryRow(`SELECT count(*) FROM job_history WHERE status = 'Running'`).Scan(&running)
	if running != 2 {
		t.Errorf("%d attempts running after the second claim, want its 2", running)
	}
}
