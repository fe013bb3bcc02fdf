package models_test

import (
	"context"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// TestJobScheduleColumnsFollowTheWritersClock: every write of a job's
// state or definition sets the engine's columns with the writer's clock
// (never the database's now()): created or enabled or changed → scheduled
// from the writer's now; rewritten unchanged → schedule kept; a new
// definition restarts scheduled_count; not enabled → no next run.
func TestJobScheduleColumnsFollowTheWritersClock(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "sched")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) // far from the database's clock
	const changed = `{"action":{"type":"http","request":{"uri":"https://example.com/other","method":"GET"}},"state":"enabled"}`
	save := func(def string, state jobdef.State, now time.Time) {
		t.Helper()
		if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "j", Definition: []byte(def), State: state, Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	plan := func(now, next time.Time, sched int64) {
		t.Helper()
		_, err := store.ClaimDue(ctx, models.ClaimRequest{Now: now, Owner: "t", Plan: func(*models.EngineJob) *models.JobPlan {
			return &models.JobPlan{NextRunAt: &next, ScheduledCount: sched}
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(step, state string, base, next *time.Time, needs bool, sched int64) {
		t.Helper()
		j, err := store.JobDetail(ctx, coll.ID, "j")
		if err != nil {
			t.Fatal(err)
		}
		same := func(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
		if string(j.State) != string(state) || !same(j.ScheduleBase, base) || !same(j.NextRunAt, next) || j.NeedsSchedule != needs || j.ScheduledCount != sched {
			t.Errorf("%s: state %s base %v next %v needs %v scheduled %d; want %s %v %v %v %d", step,
				j.State, j.ScheduleBase, j.NextRunAt, j.NeedsSchedule, j.ScheduledCount, state, base, next, needs, sched)
		}
	}
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }

	save(storedDef, "enabled", t0)
	check("created", "enabled", at(0), nil, true, 0)
	plan(t0.Add(time.Second), t0.Add(time.Hour), 5)
	check("planned", "enabled", at(0), at(time.Hour), false, 5)
	save(storedDef, "enabled", t0.Add(time.Minute))
	check("rewritten unchanged", "enabled", at(0), at(time.Hour), false, 5)
	if err := store.SetJobEnabled(ctx, jobID(t, store, coll.ID), false, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	check("disabled", "disabled", at(0), nil, false, 5)
	if err := store.SetJobEnabled(ctx, jobID(t, store, coll.ID), true, t0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	check("re-enabled", "enabled", at(3*time.Minute), nil, true, 5)
	plan(t0.Add(4*time.Minute), t0.Add(time.Hour), 5)
	save(changed, "enabled", t0.Add(5*time.Minute))
	check("definition changed", "enabled", at(5*time.Minute), nil, true, 0)
	save(storedDef, "disabled", t0.Add(6*time.Minute))
	check("changed and disabled", "disabled", at(5*time.Minute), nil, false, 0)
	save(storedDef, "enabled", t0.Add(7*time.Minute))
	check("enabled by a write", "enabled", at(7*time.Minute), nil, true, 0)
}

func jobID(t *testing.T, store *models.Store, collID int64) int64 {
	t.Helper()
	j, err := store.JobDetail(context.Background(), collID, "j")
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}
