package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// startRun queues a run of job id at now and claims it as owner: the
// attempt is running.
func startRun(t *testing.T, store *models.Store, id int64, owner string, now time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	a, err := store.RunNow(ctx, id, now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ClaimDue(ctx, models.ClaimRequest{Now: now, Owner: owner, Limit: 10,
		Plan:  func(*models.EngineJob) *models.JobPlan { return nil },
		Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }})
	if err != nil || len(got) != 1 || got[0].ID != a {
		t.Fatalf("claim: %v %+v", err, got)
	}
	return a
}

// TestRunningAttemptsOfAWorkspace lists the running attempts of one
// workspace, longest running first, with their job and instance; finished
// ones and other workspaces' are left out.
func TestRunningAttemptsOfAWorkspace(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(name string) int64 {
		return saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: name, Definition: json.RawMessage(storedDef)}).ID
	}
	a, b, c := put("a"), put("b"), put("c")
	startRun(t, store, b, "inst-2", t0)
	startRun(t, store, a, "inst-1", t0.Add(time.Second))
	done := startRun(t, store, c, "inst-1", t0.Add(2*time.Second))
	if _, err := store.FinishAttempts(ctx, []models.AttemptOutcome{{AttemptID: done, Owner: "inst-1", Now: t0.Add(3 * time.Second), Succeeded: true}}); err != nil {
		t.Fatal(err)
	}
	got, err := store.RunningAttempts(ctx, models.DefaultWorkspaceID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].JobName != "b" || got[0].Instance != "inst-2" || got[1].JobName != "a" ||
		got[0].Collection != "jc" || got[0].ResourceGroup != "rg" || got[0].Action != models.MainAction || !got[0].StartedAt.Equal(t0) {
		t.Errorf("running %+v", got)
	}
	if got, _ := store.RunningAttempts(ctx, models.DefaultWorkspaceID, 1); len(got) != 1 {
		t.Errorf("limit 1: %d", len(got))
	}
	if got, err := store.RunningAttempts(ctx, "elsewhere", 10); err != nil || len(got) != 0 {
		t.Errorf("another workspace: %+v %v", got, err)
	}
}

// TestTrendsReadRunsAndRates: RecentRuns leaves Postponed entries out,
// newest first; SuccessSince counts attempts per period.
func TestTrendsReadRunsAndRates(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: "j", Definition: json.RawMessage(storedDef)})
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	add := func(ago time.Duration, st models.HistoryStatus) {
		start := now.Add(-ago)
		if err := store.AddHistory(ctx, &models.HistoryEntry{JobID: j.ID, StartTime: start, ExpectedExecutionTime: start,
			ActionName: models.MainAction, Status: st}); err != nil {
			t.Fatal(err)
		}
	}
	add(time.Hour, models.StatusCompleted)
	add(2*time.Hour, models.StatusPostponed)
	add(3*24*time.Hour, models.StatusFailed)
	add(10*24*time.Hour, models.StatusCompleted)
	add(40*24*time.Hour, models.StatusFailed)
	runs, err := store.RecentRuns(ctx, j.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Status != models.StatusCompleted || runs[1].Status != models.StatusFailed || !runs[2].StartTime.Equal(now.Add(-10*24*time.Hour)) {
		t.Errorf("runs %+v", runs)
	}
	c, err := store.SuccessSince(ctx, j.ID, now.Add(-7*24*time.Hour), now.Add(-30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if c[0] != (models.SuccessCounts{Total: 2, Succeeded: 1}) || c[1] != (models.SuccessCounts{Total: 3, Succeeded: 2}) {
		t.Errorf("counts %+v", c)
	}
}

// TestRerunRefusals: a postponed entry, a disabled job and an unknown
// entry are refused and write nothing; the detail of an unknown entry is
// not found.
func TestRerunRefusals(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: "j", Definition: json.RawMessage(storedDef)})
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	entry := func(st models.HistoryStatus) int64 {
		e := &models.HistoryEntry{JobID: j.ID, StartTime: now, ExpectedExecutionTime: now, ActionName: models.MainAction, Status: st}
		if err := store.AddHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	postponed, failed := entry(models.StatusPostponed), entry(models.StatusFailed)
	var ce *models.ConflictError
	if _, err := store.Rerun(ctx, j.ID, postponed, "alice", now); !errors.As(err, &ce) || !strings.Contains(ce.Message, "postponed") {
		t.Errorf("postponed: %v", err)
	}
	if _, err := store.Rerun(ctx, j.ID+1000, failed, "alice", now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := store.ExecutionDetail(ctx, j.ID, 424242); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown entry: %v", err)
	}
	if err := store.SetJobEnabled(ctx, j.ID, false, now); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Rerun(ctx, j.ID, failed, "alice", now); !errors.Is(err, models.ErrJobNotEnabled) {
		t.Errorf("disabled job: %v", err)
	}
	if att, _ := store.Attempts(ctx, j.ID); len(att) != 0 {
		t.Errorf("refusals wrote %+v", att)
	}
	d, err := store.ExecutionDetail(ctx, j.ID, failed)
	if err != nil || d.HasDetails || d.Request != nil {
		t.Errorf("an entry without details: %+v %v", d, err)
	}
}
