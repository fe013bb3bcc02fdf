package models_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"sked/models"
)

// TestFinishAttemptsBatchCountsFaultsAndEndsJobs records one batch with
// several outcomes per job, listed out of attempt order: the faulted
// occurrences in a row follow the attempts' order (one more per faulted
// main action, back to 0 when an occurrence ends without a fault); a job
// whose occurrence ended with nothing open ends once, with one audit
// entry, even when two of its outcomes end occurrences; a job with a next
// attempt stays enabled.
func TestFinishAttemptsBatchCountsFaultsAndEndsJobs(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	job := func(name string, faults int) int64 {
		var id int64
		if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, needs_schedule)
			VALUES ($1, $2, $3::jsonb, 'enabled', false) RETURNING id),
			r AS (INSERT INTO job_results (job_id, consecutive_faults) SELECT id, $4 FROM j)
			SELECT id FROM j`, coll.ID, name, storedDef, faults).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	running := func(jobID int64, n int) int64 {
		var id int64
		at := t0.Add(time.Duration(n) * time.Minute)
		if err := db.QueryRow(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				lease_owner, lease_expires_at, started_at)
			VALUES ($1, $2, 'MainAction', 1, $3, 'running', $2, 'me', $2::timestamptz + interval '1 hour', $2) RETURNING id`,
			jobID, at, n).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// mixed: 2 faults before; fault, success (back to 0), fault: 1, ended
	// (the last occurrence faulted) by its first ending outcome.
	mixed := job("mixed", 2)
	m1, m2, m3 := running(mixed, 1), running(mixed, 2), running(mixed, 3)
	// faults: 2 before, two more faults: 4; its second outcome has a next
	// attempt (an error action), so the job stays enabled.
	faults := job("faults", 2)
	f1, f2 := running(faults, 1), running(faults, 2)
	// clean: 0 before, one success: 0, ended completed.
	clean := job("clean", 0)
	c1 := running(clean, 1)
	end := t0.Add(time.Hour)
	fault := func(id int64, at time.Time) models.AttemptOutcome {
		return models.AttemptOutcome{AttemptID: id, Owner: "me", Now: at, Message: "500", Faulted: true, OccurrenceFaulted: true}
	}
	ok := func(id int64, at time.Time) models.AttemptOutcome {
		return models.AttemptOutcome{AttemptID: id, Owner: "me", Now: at, Succeeded: true}
	}
	withNext := fault(f2, end)
	withNext.Next = &models.NextAttempt{Action: models.ErrorAction, Attempt: 1, DueAt: end}
	outcomes := []models.AttemptOutcome{fault(m3, end.Add(3*time.Second)), ok(c1, end), withNext, ok(m2, end.Add(2*time.Second)),
		fault(f1, end), fault(m1, end.Add(time.Second))}
	res, err := store.FinishAttempts(ctx, outcomes)
	if err != nil {
		t.Fatal(err)
	}
	endedBy := map[int64]int64{}
	for _, r := range res {
		if !r.Recorded {
			t.Errorf("attempt %d not recorded", r.AttemptID)
		}
		if r.JobEnded {
			if prev, dup := endedBy[r.JobID]; dup {
				t.Errorf("job %d ended by attempts %d and %d", r.JobID, prev, r.AttemptID)
			}
			endedBy[r.JobID] = r.AttemptID
		}
	}
	// The first ending outcome in the batch's order ends the job.
	if endedBy[mixed] != m3 || endedBy[clean] != c1 || endedBy[faults] != 0 {
		t.Errorf("ended by %v, want mixed by %d, clean by %d, faults not", endedBy, m3, c1)
	}
	check := func(id int64, wantFaults int, wantState string, wantEnd *time.Time) {
		t.Helper()
		var n int
		var state string
		var endedAt sql.NullTime
		if err := db.QueryRow(`SELECT r.consecutive_faults, j.state, j.ended_at FROM jobs j JOIN job_results r ON r.job_id = j.id
			WHERE j.id = $1`, id).Scan(&n, &state, &endedAt); err != nil {
			t.Fatal(err)
		}
		if n != wantFaults || state != wantState || endedAt.Valid != (wantEnd != nil) || wantEnd != nil && !endedAt.Time.Equal(*wantEnd) {
			t.Errorf("job %d: %d faults, %s, ended %v; want %d, %s, %v", id, n, state, endedAt, wantFaults, wantState, wantEnd)
		}
	}
	mixedEnd := end.Add(3 * time.Second)
	check(mixed, 1, "faulted", &mixedEnd)
	check(faults, 4, "enabled", nil)
	check(clean, 0, "completed", &end)
	rows, err := db.Query(`SELECT action, resource FROM audit_entries WHERE actor_kind = 'engine' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var action, resource string
		if err := rows.Scan(&action, &resource); err != nil {
			t.Fatal(err)
		}
		got = append(got, action+" "+resource)
	}
	want := []string{"job.fault resourceGroups/rg/jobCollections/jc/jobs/mixed", "job.complete resourceGroups/rg/jobCollections/jc/jobs/clean"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("audit entries %q, want %q", got, want)
	}
}
