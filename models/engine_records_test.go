package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// TestAttemptRecords: an occurrence the schedule starts is its history row
// from the start (status Running, leased), which no history read shows or
// counts; its end updates that row into the entry (the same id) with its
// details, counters and hourly roll-up. With AttemptRows (an older release
// alive) the claim starts job_attempts rows instead, and one batch
// finishes both kinds. An expired record is reported to the next claim and
// recorded interrupted; a released one becomes a pending attempt with the
// same id and number.
func TestAttemptRecords(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var ids []int64
	for _, name := range []string{"a", "b", "c", "d"} {
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
	claim := func(now time.Time, only int64, rows bool) []models.ClaimedAttempt {
		t.Helper()
		got, err := store.ClaimDue(ctx, models.ClaimRequest{Now: now, Owner: "inst", Limit: 10, Lease: lease, AttemptRows: rows,
			Plan: func(j *models.EngineJob) *models.JobPlan {
				if j.ID != only {
					return &models.JobPlan{NextRunAt: j.NextRunAt, ScheduledCount: j.ScheduledCount}
				}
				next := now.Add(time.Hour)
				return &models.JobPlan{NextRunAt: &next, ScheduledCount: j.ScheduledCount + 1,
					Run: &models.PlannedRun{ExpectedTime: now, DueAt: now.Add(-2 * time.Second), Lease: time.Hour}}
			}})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	started := t0.Add(3 * time.Second)

	// A record: its history row, running, hidden from every read.
	rec := claim(started, ids[0], false)
	if len(rec) != 1 || rec[0].HistoryID == 0 || rec[0].ID == 0 {
		t.Fatalf("records claim: %+v, want one record", rec)
	}
	var status string
	var lateness int64
	if err := db.QueryRow(`SELECT status, lateness_ms FROM job_history WHERE id = $1 AND attempt_id = $2`,
		rec[0].HistoryID, rec[0].ID).Scan(&status, &lateness); err != nil || status != string(models.StatusRunning) || lateness != 2000 {
		t.Fatalf("record row: %q, lateness %d (%v); want Running, 2000", status, lateness, err)
	}
	var attempts int
	if err := db.QueryRow(`SELECT count(*) FROM job_attempts`).Scan(&attempts); err != nil || attempts != 0 {
		t.Errorf("%d job_attempts rows (%v): a record wrote one", attempts, err)
	}
	if h, err := store.History(ctx, models.HistoryQuery{JobID: ids[0], Limit: 10}); err != nil || len(h) != 0 {
		t.Errorf("history of a running record: %+v (%v), want none", h, err)
	}
	if _, err := store.ExecutionDetail(ctx, ids[0], rec[0].HistoryID); err == nil {
		t.Error("the execution detail of a running record was found")
	}
	open, err := store.Attempts(ctx, ids[0])
	if err != nil || len(open) != 1 || open[0].ID != rec[0].ID || open[0].Status != models.AttemptRunning {
		t.Errorf("open attempts: %+v (%v), want the record running", open, err)
	}
	running, err := store.RunningAttempts(ctx, models.DefaultWorkspaceID, 10)
	if err != nil || len(running) != 1 || running[0].ID != rec[0].ID || running[0].Instance != "inst" {
		t.Errorf("running attempts: %+v (%v), want the record", running, err)
	}

	// With AttemptRows, a job_attempts row.
	row := claim(started, ids[1], true)
	if len(row) != 1 || row[0].HistoryID != 0 {
		t.Fatalf("attempt-rows claim: %+v, want one job_attempts row", row)
	}

	// One batch finishes both: the record's row becomes its entry.
	end := started.Add(time.Second)
	fin, err := store.FinishAttempts(ctx, []models.AttemptOutcome{
		{AttemptID: rec[0].ID, HistoryID: rec[0].HistoryID, HistoryStart: rec[0].StartedAt, Owner: "other", Now: end, Succeeded: true}})
	if err != nil || fin[0].Recorded {
		t.Fatalf("finish by another owner: %+v (%v), want nothing recorded", fin, err)
	}
	fin, err = store.FinishAttempts(ctx, []models.AttemptOutcome{
		{AttemptID: rec[0].ID, HistoryID: rec[0].HistoryID, HistoryStart: rec[0].StartedAt, Owner: "inst", Now: end, Succeeded: true, Message: "200",
			Exchange: &models.Exchange{SentAt: started, IdempotencyKey: "k"}},
		{AttemptID: row[0].ID, Owner: "inst", Now: end, Message: "500"},
	})
	if err != nil || !fin[0].Recorded || !fin[1].Recorded {
		t.Fatalf("finish: %+v (%v), want both recorded", fin, err)
	}
	h, err := store.History(ctx, models.HistoryQuery{JobID: ids[0], Limit: 10})
	if err != nil || len(h) != 1 || h[0].ID != rec[0].HistoryID || h[0].Status != models.StatusCompleted ||
		h[0].AttemptID == nil || *h[0].AttemptID != rec[0].ID || h[0].EndTime == nil || !h[0].EndTime.Equal(end) {
		t.Fatalf("history after the end: %+v (%v), want the record's row Completed", h, err)
	}
	det, err := store.ExecutionDetail(ctx, ids[0], rec[0].HistoryID)
	if err != nil || !det.HasDetails || det.Instance != "inst" || det.DueAt == nil || !det.DueAt.Equal(started.Add(-2*time.Second)) {
		t.Errorf("details: %+v (%v), want the instance and the due time", det, err)
	}
	var exec, failed int64
	db.QueryRow(`SELECT execution_count, failure_count FROM job_results WHERE job_id = $1`, ids[1]).Scan(&exec, &failed)
	if exec != 1 || failed != 1 {
		t.Errorf("the job_attempts row's job: %d executions, %d failures; want 1, 1", exec, failed)
	}
	checkHours(t, db, 2)

	// An expired record is reported, then recorded interrupted.
	exp := claim(started, ids[2], false)
	if _, err := db.Exec(`UPDATE job_history SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, exp[0].HistoryID); err != nil {
		t.Fatal(err)
	}
	var reported *models.ClaimedAttempt
	got, err := store.ClaimDue(ctx, models.ClaimRequest{Now: started, Owner: "other", Limit: 0, Lease: lease,
		Plan: func(j *models.EngineJob) *models.JobPlan { return &models.JobPlan{NextRunAt: j.NextRunAt} }})
	for i := range got {
		if got[i].Expired && got[i].ID == exp[0].ID {
			reported = &got[i]
		}
	}
	if err != nil || reported == nil || reported.HistoryID != exp[0].HistoryID {
		t.Fatalf("expired: %+v (%v), want the record reported", got, err)
	}
	fin, err = store.FinishAttempts(ctx, []models.AttemptOutcome{{AttemptID: reported.ID, HistoryID: reported.HistoryID, HistoryStart: reported.StartedAt,
		Owner: "other", Expired: true, Now: end, Message: "interrupted"}})
	if err != nil || !fin[0].Recorded {
		t.Fatalf("interrupted: %+v (%v)", fin, err)
	}

	// A released record becomes a pending attempt, and no entry.
	rel := claim(started, ids[3], false)
	if n, err := store.ReleaseAttempts(ctx, "inst", []int64{rel[0].ID}, end); err != nil || n != 1 {
		t.Fatalf("release: %d (%v), want 1", n, err)
	}
	open, err = store.Attempts(ctx, ids[3])
	if err != nil || len(open) != 1 || open[0].ID != rel[0].ID || open[0].Status != models.AttemptPending || open[0].Attempt != 1 {
		t.Errorf("after the release: %+v (%v), want the attempt pending", open, err)
	}
	var rows int
	db.QueryRow(`SELECT count(*) FROM job_history WHERE job_id = $1`, ids[3]).Scan(&rows)
	if rows != 0 {
		t.Errorf("%d history rows after the release, want none", rows)
	}
	checkHours(t, db, 3)
}

// checkHours fails t unless history_hours counts want entries, as many as
// job_history holds apart from running records.
func checkHours(t *testing.T, db *sql.DB, want int64) {
	t.Helper()
	var hours, entries int64
	if err := db.QueryRow(`SELECT (SELECT coalesce(sum(count), 0) FROM history_hours),
		(SELECT count(*) FROM job_history WHERE status <> 'Running')`).Scan(&hours, &entries); err != nil {
		t.Fatal(err)
	}
	if hours != want || entries != want {
		t.Errorf("history_hours counts %d, job_history holds %d entries; want %d", hours, entries, want)
	}
}
