package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// limitedJobs inserts n enabled jobs of coll due at t0 + i ms (job i)
// and returns their ids in due order.
func limitedJobs(t *testing.T, db *sql.DB, coll int64, n int, t0 time.Time) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range n {
		if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, needs_schedule, next_run_at)
			VALUES ($1, $2, $3::jsonb, 'enabled', false, $4) RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll, fmt.Sprintf("limited%03d", i), storedDef, t0.Add(time.Duration(i)*time.Millisecond)).Scan(&ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// limitedClaim is a claim at now by owner of up to 10 attempts that runs
// each due job's occurrence at its next run, every attempt to host.
func limitedClaim(now time.Time, owner, host string) models.ClaimRequest {
	return models.ClaimRequest{Now: now, Owner: owner, Limit: 10,
		Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour },
		Plan: func(j *models.EngineJob) *models.JobPlan {
			return &models.JobPlan{ScheduledCount: 1, Run: &models.PlannedRun{ExpectedTime: *j.NextRunAt, Lease: time.Hour},
				End: jobdef.Completed}
		},
		Target: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) string { return host }}
}

// claimRound runs 20 claims at once and returns the attempts they
// started.
func claimRound(t *testing.T, store *models.Store, now time.Time, host string, round int) []models.ClaimedAttempt {
	t.Helper()
	var mu sync.Mutex
	var out []models.ClaimedAttempt
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := store.Claim(context.Background(), limitedClaim(now, fmt.Sprintf("r%d-g%d", round, g), host))
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			out = append(out, res.Attempts...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// attemptCounts counts the open attempts by status, and those held for
// host.
func attemptCounts(t *testing.T, db *sql.DB, host string) (running, pending, held int) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE status = 'running'), count(*) FILTER (WHERE status = 'pending'),
		count(*) FILTER (WHERE target_host = $1) FROM job_attempts`, host).Scan(&running, &pending, &held); err != nil {
		t.Fatal(err)
	}
	return
}

// TestClaimReservesTargetSlotsUnderConcurrency: 100 jobs due to one host
// limited to 5 in flight, 20 claims at once, in rounds: never more than 5
// attempts running, none dropped (every job's occurrence is an attempt,
// running or held), and once every job is held, each freed slot goes to
// the earliest due of the waiting attempts. A deleted limit lets them all
// start.
func TestClaimReservesTargetSlotsUnderConcurrency(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	const host = "api.example.com"
	five := 5
	if _, err := store.PutTargetLimit(ctx, models.TargetLimitWrite{WorkspaceID: models.DefaultWorkspaceID, Host: host, MaxConcurrent: &five,
		Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	limitedJobs(t, db, coll.ID, 100, t0)
	now := t0.Add(time.Second)
	var started []models.ClaimedAttempt
	for round := range 3 {
		started = append(started, claimRound(t, store, now, host, round)...)
		running, pending, held := attemptCounts(t, db, host)
		if running > 5 {
			t.Fatalf("round %d: %d attempts running, the limit is 5", round, running)
		}
		if round == 2 && (running != 5 || running+pending != 100 || held != 100) {
			t.Fatalf("after three rounds: %d running, %d pending, %d held for the host; want 5, 95, 100", running, pending, held)
		}
	}
	if len(started) != 5 {
		t.Fatalf("%d attempts started, want 5", len(started))
	}
	// Free the slots; the next round starts the five earliest due.
	for round := 3; round < 6; round++ {
		var outs []models.AttemptOutcome
		for _, a := range started {
			outs = append(outs, models.AttemptOutcome{AttemptID: a.ID, Owner: fmt.Sprint(ownerOf(t, db, a.ID)), Now: now, Succeeded: true})
		}
		if _, err := store.FinishAttempts(ctx, outs); err != nil {
			t.Fatal(err)
		}
		var want []time.Time
		rows, err := db.Query(`SELECT due_at FROM job_attempts WHERE status = 'pending' ORDER BY due_at, id LIMIT 5`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var at time.Time
			if err := rows.Scan(&at); err != nil {
				t.Fatal(err)
			}
			want = append(want, at.UTC())
		}
		rows.Close()
		started = claimRound(t, store, now, host, round)
		var got []time.Time
		for _, a := range started {
			got = append(got, a.DueAt.UTC())
			if a.LimitWaitMs == nil || a.TargetHost != host {
				t.Errorf("attempt %d: wait %v, host %q: want a recorded wait and %s", a.ID, a.LimitWaitMs, a.TargetHost, host)
			}
		}
		sort.Slice(got, func(i, j int) bool { return got[i].Before(got[j]) })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d started the attempts due at %v, want the earliest due %v", round, got, want)
		}
		if running, _, _ := attemptCounts(t, db, host); running != 5 {
			t.Fatalf("round %d: %d running, want 5", round, running)
		}
	}
	if err := store.DeleteTargetLimit(ctx, models.DefaultWorkspaceID, host); err != nil {
		t.Fatal(err)
	}
	for round := 6; round < 9; round++ {
		claimRound(t, store, now, host, round)
	}
	if running, pending, _ := attemptCounts(t, db, host); running != 100-15 || pending != 0 {
		t.Fatalf("after the limit was deleted: %d running, %d pending; want %d and 0", running, pending, 100-15)
	}
}

// ownerOf returns the lease owner of attempt id.
func ownerOf(t *testing.T, db *sql.DB, id int64) string {
	t.Helper()
	var owner string
	if err := db.QueryRow(`SELECT lease_owner FROM job_attempts WHERE id = $1`, id).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	return owner
}

// TestClaimCountsTargetStartsPerSecond: 100 jobs due to one host limited
// to 7 starts a second, 20 claims at once: at most 7 start in each second
// of the database's clock the claims ran in, some do; a claim in the last
// 200 ms of a second starts none.
func TestClaimCountsTargetStartsPerSecond(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	const host = "queue.example.net:8443"
	seven := 7
	if _, err := store.PutTargetLimit(ctx, models.TargetLimitWrite{WorkspaceID: models.DefaultWorkspaceID, Host: host, MaxPerSecond: &seven,
		Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	limitedJobs(t, db, coll.ID, 100, t0)
	// Claims start nothing per second-limited in the last 200 ms of a
	// second: each round begins at the start of one (the machine's clock
	// is the database's). On a loaded machine a round's 20 claims may all
	// land in those 200 ms; then the next round tries again.
	var before, after time.Time
	if err := db.QueryRow(`SELECT date_trunc('second', clock_timestamp())`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	var started []models.ClaimedAttempt
	for round := 0; round < 3 && len(started) == 0; round++ {
		if into := time.Since(time.Now().Truncate(time.Second)); into > 500*time.Millisecond {
			time.Sleep(time.Second - into + 20*time.Millisecond)
		}
		started = claimRound(t, store, t0.Add(time.Second), host, round)
	}
	if err := db.QueryRow(`SELECT date_trunc('second', clock_timestamp())`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	seconds := int(after.Sub(before)/time.Second) + 1
	if len(started) == 0 || len(started) > 7*seconds {
		t.Fatalf("%d attempts started in %d second(s), the limit is 7 a second", len(started), seconds)
	}
	var starts int
	if err := db.QueryRow(`SELECT second_starts FROM target_limits WHERE host = $1`, host).Scan(&starts); err != nil || starts > 7 {
		t.Fatalf("second_starts %d (%v), want at most 7", starts, err)
	}
	if running, pending, held := attemptCounts(t, db, host); running != len(started) || running+pending != 100 || held != 100 {
		t.Fatalf("%d running (%d started), %d pending, %d held; want every job's attempt running or held", running, len(started), pending, held)
	}
	t.Logf("%d started in %d second(s)", len(started), seconds)
	// The guard at the end of a second: no start there, however much of
	// the second's budget is left.
	if _, err := db.Exec(`UPDATE target_limits SET max_per_second = 100000`); err != nil {
		t.Fatal(err)
	}
	if into := time.Since(time.Now().Truncate(time.Second)); into < 850*time.Millisecond {
		time.Sleep(850*time.Millisecond - into)
	}
	res, err := store.Claim(ctx, limitedClaim(t0.Add(time.Second), "late", host))
	if into := time.Since(time.Now().Truncate(time.Second)); err != nil || (len(res.Attempts) != 0 && into > 850*time.Millisecond) {
		t.Errorf("a claim at %s into a second started %d attempts (%v), want none", into, len(res.Attempts), err)
	}
}
