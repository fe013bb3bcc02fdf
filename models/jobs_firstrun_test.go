package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// engineCols reads a job's engine columns.
func engineCols(t *testing.T, store *models.Store, coll int64, name string) (base, next *time.Time, needs bool) {
	t.Helper()
	j, err := store.JobByName(context.Background(), coll, name)
	if err != nil {
		t.Fatal(err)
	}
	return j.ScheduleBase, j.NextRunAt, j.NeedsSchedule
}

// TestApplyImportStoresTheWritersNextRuns imports 2,500 jobs (three
// statements) with their next runs: none needs scheduling and each holds
// its own; an import refused at its 2,101st job (the quota) leaves nothing;
// SetFirstRuns changes only the rows still holding what the write stored.
func TestApplyImportStoresTheWritersNextRuns(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	ref := models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "rg", Name: "jc"}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	batch := func(prefix string, n, maxJobs int) models.ImportBatch {
		b := models.ImportBatch{Collections: []models.ImportCollection{{Ref: ref}}}
		for i := range n {
			next := now.Add(time.Duration(i) * time.Second)
			b.Jobs = append(b.Jobs, models.ImportJob{Write: models.JobWrite{Name: fmt.Sprintf("%s%d", prefix, i),
				Definition: []byte(storedDef), Now: now, NextRunAt: &next, MaxJobs: maxJobs}})
		}
		return b
	}
	if _, err := store.ApplyImport(ctx, batch("a", 2500, 0)); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 999, 1000, 2499} {
		base, next, needs := engineCols(t, store, coll.ID, fmt.Sprintf("a%d", i))
		if needs || base == nil || !base.Equal(now) || next == nil || !next.Equal(now.Add(time.Duration(i)*time.Second)) {
			t.Errorf("a%d: base %v next %v needs_schedule %v", i, base, next, needs)
		}
	}
	_, err := store.ApplyImport(ctx, batch("b", 2500, 4600))
	var qe *models.QuotaError
	if !errors.As(err, &qe) {
		t.Fatalf("import over the quota: %v, want a QuotaError", err)
	}
	if n, _ := store.CountJobs(ctx, coll.ID); n != 2500 {
		t.Errorf("%d jobs after the refused import, want 2500", n)
	}

	later := now.Add(time.Minute)
	laterNext := later.Add(time.Hour)
	err = store.SetFirstRuns(ctx, []models.FirstRun{
		{CollectionID: coll.ID, Name: "A1", Was: now, WasNext: now.Add(time.Second), Base: later, Next: &laterNext},
		{CollectionID: coll.ID, Name: "a2", Was: now, WasNext: now, Base: later, Next: &laterNext}, // not what a2 holds
		{CollectionID: coll.ID, Name: "a3", Was: now, WasNext: now.Add(3 * time.Second), Base: later},
	})
	if err != nil {
		t.Fatal(err)
	}
	if base, next, needs := engineCols(t, store, coll.ID, "a1"); needs || !base.Equal(later) || !next.Equal(laterNext) {
		t.Errorf("a1: base %v next %v needs_schedule %v, want planned again", base, next, needs)
	}
	if base, next, needs := engineCols(t, store, coll.ID, "a2"); needs || !base.Equal(now) || !next.Equal(now.Add(2*time.Second)) {
		t.Errorf("a2: base %v next %v needs_schedule %v, want unchanged", base, next, needs)
	}
	if base, next, needs := engineCols(t, store, coll.ID, "a3"); !needs || !base.Equal(later) || next != nil {
		t.Errorf("a3: base %v next %v needs_schedule %v, want left to the engine", base, next, needs)
	}
}
