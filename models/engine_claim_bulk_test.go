package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// TestClaimWritesOneTimeJobsAndSchedulesInBulk claims, on the real
// database, jobs whose plans take the bulk paths: jobs to schedule (their
// next run written, nothing started), then one-time occurrences (a run and
// an end, no next run). The started attempts are running with their jobs
// advanced; a job whose occurrence had already run (its last started
// occurrence, last_expected_at, is that one) does not start it again and ends in its plan's end state, with its
// audit entry; a job to schedule whose plan ends is ended too.
func TestClaimWritesOneTimeJobsAndSchedulesInBulk(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const n = 40
	ids := map[string]int64{}
	for i := range n + 1 {
		name := fmt.Sprintf("once%02d", i)
		if i == n {
			name = "ends"
		}
		var id int64
		if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, needs_schedule, schedule_base)
			VALUES ($1, $2, $3::jsonb, 'enabled', true, $4) RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll.ID, name, storedDef, t0).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	// once00's occurrence already ran (its attempt finished and is gone):
	// the job's last started occurrence is t0. once01's last one was a
	// second earlier.
	if _, err := db.Exec(`UPDATE jobs SET last_expected_at = CASE WHEN id = $1 THEN $3::timestamptz ELSE $3::timestamptz - interval '1 second' END
		WHERE id IN ($1, $2)`, ids["once00"], ids["once01"], t0); err != nil {
		t.Fatal(err)
	}
	lease := func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }
	// The scheduling claim: every job gets its one occurrence at t0 as
	// the next run, but "ends", which has none left.
	sched := models.ClaimRequest{Now: t0.Add(-time.Minute), Owner: "inst", Limit: 100, Lease: lease,
		Plan: func(j *models.EngineJob) *models.JobPlan {
			if j.ID == ids["ends"] {
				return &models.JobPlan{End: jobdef.Completed}
			}
			next := t0
			return &models.JobPlan{NextRunAt: &next, ScheduledCount: 0, ScheduleBase: &t0}
		}}
	res, err := store.Claim(ctx, sched)
	if err != nil || len(res.Attempts) != 0 {
		t.Fatalf("scheduling claim: %v, %d attempts started, want none", err, len(res.Attempts))
	}
	var scheduled int
	if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE next_run_at = $1 AND NOT needs_schedule AND state = 'enabled'`, t0).Scan(&scheduled); err != nil || scheduled != n {
		t.Fatalf("%d jobs scheduled at t0 (%v), want %d", scheduled, err, n)
	}
	// The claim at t0: each runs its one occurrence and has none left.
	run := models.ClaimRequest{Now: t0, Owner: "inst", Limit: 100, Lease: lease,
		Plan: func(j *models.EngineJob) *models.JobPlan {
			return &models.JobPlan{ScheduledCount: 1, Run: &models.PlannedRun{ExpectedTime: t0, Lease: time.Hour},
				End: jobdef.Completed, Description: "once"}
		}}
	var before, after time.Time
	if err := db.QueryRow(`SELECT clock_timestamp()`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	res, err = store.Claim(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT clock_timestamp()`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if len(res.Attempts) != n-1 {
		t.Fatalf("%d attempts started, want %d (once00's occurrence already ran)", len(res.Attempts), n-1)
	}
	for _, a := range res.Attempts {
		// The lease ends an hour after the claim by the database's clock,
		// whatever the claim's now.
		if a.JobID == ids["once00"] || a.Occurrence != 1 || !a.ExpectedTime.Equal(t0) ||
			a.LeaseExpiresAt.Before(before.Add(time.Hour)) || a.LeaseExpiresAt.After(after.Add(time.Hour)) {
			t.Errorf("attempt %+v, want its lease ending an hour after the claim by the database's clock (%s … %s)",
				a, before.Add(time.Hour), after.Add(time.Hour))
		}
	}
	rows, err := db.Query(`SELECT name, state, next_run_at IS NULL, occurrence_count, scheduled_count, last_run_at FROM jobs ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, state string
		var noNext bool
		var occ, sc int64
		var last sql.NullTime
		if err := rows.Scan(&name, &state, &noNext, &occ, &sc, &last); err != nil {
			t.Fatal(err)
		}
		switch name {
		case "ends":
			if state != "completed" {
				t.Errorf("ends: %s, want completed (its plan ended it while scheduling)", state)
			}
		case "once00":
			if state != "completed" || !noNext || occ != 0 || last.Valid {
				t.Errorf("once00: %s, no next %v, %d occurrences, last run %v; want completed, true, 0, none", state, noNext, occ, last)
			}
		default:
			if state != "enabled" || !noNext || occ != 1 || sc != 1 || !last.Valid || !last.Time.Equal(t0) {
				t.Errorf("%s: %s, no next %v, %d occurrences, %d scheduled, last run %v; want enabled, true, 1, 1, %v",
					name, state, noNext, occ, sc, last, t0)
			}
		}
	}
	var atT0 int
	if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE last_expected_at = $1`, t0).Scan(&atT0); err != nil || atT0 != n {
		t.Errorf("%d jobs whose last started occurrence is t0 (%v), want %d (the %d started and once00)", atT0, err, n, n-1)
	}
	var running, audits int
	// Started from the schedule, each is a record: its history row, running.
	if err := db.QueryRow(`SELECT count(*) FROM job_history WHERE status = 'Running' AND lease_owner = 'inst'`).Scan(&running); err != nil || running != n-1 {
		t.Errorf("%d running records (%v), want %d", running, err, n-1)
	}
	if err := db.QueryRow(`SELECT count(*) FROM audit_entries WHERE actor_kind = 'engine' AND action = 'job.complete'`).Scan(&audits); err != nil || audits != 2 {
		t.Errorf("%d engine audit entries of job.complete (%v), want 2 (ends, once00)", audits, err)
	}
}
