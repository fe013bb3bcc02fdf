package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// TestSaveJobsIsOneTransaction writes a batch that creates and replaces
// jobs, then one that would go over the job quota: the second is refused
// with a QuotaError and leaves nothing behind, not even its first writes.
func TestSaveJobsIsOneTransaction(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store, "rg", "jc")
	ctx := context.Background()
	if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "Old", Definition: []byte(storedDef)}); err != nil {
		t.Fatal(err)
	}
	disabled := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"disabled"}`
	secrets := jobdef.Secrets{"action.request.authentication.password#basic": "hunter2"}
	writes := []models.JobWrite{
		{CollectionID: coll.ID, Name: "a", Definition: []byte(storedDef), MaxJobs: 3, Secrets: secrets},
		{CollectionID: coll.ID, Name: "OLD", Definition: []byte(disabled), State: "disabled", MaxJobs: 3},
		{CollectionID: coll.ID, Name: "b", Definition: []byte(storedDef), MaxJobs: 3},
	}
	created, err := store.SaveJobs(ctx, writes)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(created) != "[true false true]" {
		t.Errorf("created %v, want [true false true]", created)
	}
	old, err := store.JobByName(ctx, coll.ID, "old")
	if err != nil || old.State != "disabled" || old.Name != "Old" {
		t.Errorf("replaced job: %+v, %v", old, err)
	}
	stored, err := store.JobsWithSecrets(ctx, coll.ID)
	if err != nil || len(stored) != 3 || stored["a"].Secrets["action.request.authentication.password#basic"] != "hunter2" ||
		stored["old"].Name != "Old" || len(stored["b"].Secrets) != 0 {
		t.Errorf("JobsWithSecrets = %+v, %v", stored, err)
	}

	// The quota allows 3; c would be the fourth. d comes first and must
	// not stay.
	over := []models.JobWrite{
		{CollectionID: coll.ID, Name: "d", Definition: []byte(storedDef)},
		{CollectionID: coll.ID, Name: "a", Definition: []byte(disabled), State: "disabled", MaxJobs: 3},
		{CollectionID: coll.ID, Name: "c", Definition: []byte(storedDef), MaxJobs: 4},
		{CollectionID: coll.ID, Name: "e", Definition: []byte(storedDef), MaxJobs: 4},
	}
	_, err = store.SaveJobs(ctx, over)
	var qe *models.QuotaError
	if !errors.As(err, &qe) || qe.Quota != "maxJobCount" || !errors.Is(err, models.ErrConflict) {
		t.Fatalf("over the quota: %v, want a maxJobCount QuotaError", err)
	}
	if n, _ := store.CountJobs(ctx, coll.ID); n != 3 {
		t.Errorf("%d jobs after the refused batch, want 3", n)
	}
	if a, _ := store.JobByName(ctx, coll.ID, "a"); a == nil || a.State != "enabled" {
		t.Errorf("job a after the refused batch: %+v, want it unchanged (enabled)", a)
	}
	if _, err := store.SaveJobs(ctx, []models.JobWrite{{CollectionID: 999999, Name: "x", Definition: []byte(storedDef)}}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown collection: %v", err)
	}
	// The same job twice in one batch: the second write replaces the first.
	twice := []models.JobWrite{
		{CollectionID: coll.ID, Name: "b", Definition: []byte(storedDef), State: "completed"},
		{CollectionID: coll.ID, Name: "B", Definition: []byte(disabled), State: "disabled"},
	}
	if created, err := store.SaveJobs(ctx, twice); err != nil || fmt.Sprint(created) != "[false false]" {
		t.Errorf("the same job twice: %v, %v", created, err)
	}
	if b, _ := store.JobByName(ctx, coll.ID, "b"); b == nil || b.State != "disabled" || b.EndedAt != nil {
		t.Errorf("job b after two writes in one batch: %+v", b)
	}
	if created, err := store.SaveJobs(ctx, nil); err != nil || len(created) != 0 {
		t.Errorf("empty batch: %v, %v", created, err)
	}
}

// TestApplyImportCreatesCollectionsInTheSameTransaction imports into a new
// collection and an existing one; a refused job rolls back the new
// collection and its resource group too.
func TestApplyImportCreatesCollectionsInTheSameTransaction(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	existing := newCollection(t, store, "rg", "Existing")
	five := 5
	premium := &models.JobCollection{SKU: models.SKUP20Premium, State: "Disabled", Location: "North Europe", MaxJobCount: &five}
	newRef := models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "imported", Name: "fresh"}
	existingRef := models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "RG", Name: "existing"}

	refused := models.ImportBatch{
		Collections: []models.ImportCollection{{Ref: newRef, Settings: premium}, {Ref: existingRef}},
		Jobs: []models.ImportJob{
			{Collection: 0, Write: models.JobWrite{Name: "a", Definition: []byte(storedDef), MaxJobs: 5}},
			{Collection: 1, Write: models.JobWrite{Name: "b", Definition: []byte(storedDef), MaxJobs: 0, MustExist: true}},
		},
	}
	if _, err := store.ApplyImport(ctx, refused); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("MustExist on a missing job: %v, want ErrNotFound", err)
	}
	if _, err := store.CollectionByRef(ctx, newRef); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("the refused import left its collection behind: %v", err)
	}
	groups, _ := store.ListCollections(ctx, models.ListCollectionsParams{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "imported", Limit: 10})
	if len(groups) != 0 {
		t.Errorf("collections in the refused import's group: %v", groups)
	}

	refused.Jobs[1].Write.MustExist = false
	var seen []int
	refused.Progress = func(done int) { seen = append(seen, done) }
	res, err := store.ApplyImport(ctx, refused)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.CollectionCreated, res.JobCreated, seen) != "[true false] [true true] [2]" {
		t.Errorf("result %v %v, progress %v", res.CollectionCreated, res.JobCreated, seen)
	}
	got, err := store.CollectionByRef(ctx, newRef)
	if err != nil || got.SKU != models.SKUP20Premium || got.State != "Disabled" || got.Location != "North Europe" ||
		got.MaxJobCount == nil || *got.MaxJobCount != 5 {
		t.Errorf("created collection: %+v, %v", got, err)
	}
	if n, _ := store.CountJobs(ctx, existing.ID); n != 1 {
		t.Errorf("existing collection holds %d jobs, want 1", n)
	}

	// Without Replace an existing collection keeps its settings; with it
	// they are replaced.
	standard := &models.JobCollection{SKU: models.SKUStandard, State: "Enabled"}
	if _, err := store.ApplyImport(ctx, models.ImportBatch{Collections: []models.ImportCollection{{Ref: newRef, Settings: standard}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.CollectionByRef(ctx, newRef); got.SKU != models.SKUP20Premium {
		t.Errorf("without Replace the sku became %s", got.SKU)
	}
	if _, err := store.ApplyImport(ctx, models.ImportBatch{Collections: []models.ImportCollection{{Ref: newRef, Settings: standard, Replace: true}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.CollectionByRef(ctx, newRef); got.SKU != models.SKUStandard || got.State != "Enabled" || got.MaxJobCount != nil {
		t.Errorf("with Replace: %+v", got)
	}
	if _, err := store.ApplyImport(ctx, models.ImportBatch{Collections: []models.ImportCollection{
		{Ref: models.CollectionRef{WorkspaceID: "nowhere", ResourceGroup: "rg", Name: "x"}}}}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown workspace: %v, want ErrNotFound", err)
	}
	ids, err := store.WorkspaceIDs(ctx)
	if err != nil || fmt.Sprint(ids) != "[default]" {
		t.Errorf("WorkspaceIDs = %v, %v", ids, err)
	}
}

// BenchmarkSaveJobs5000 writes 5,000 new jobs (5 collections of 1,000)
// in one SaveJobs call.
func BenchmarkSaveJobs5000(b *testing.B) {
	store := testdb.Store(b)
	ctx := context.Background()
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "owner", Password: "password123"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		var writes []models.JobWrite
		for c := range 5 {
			coll := &models.JobCollection{Name: fmt.Sprintf("c%d_%d", i, c), SKU: models.SKUP20Premium}
			if err := store.CreateCollection(ctx, models.DefaultWorkspaceID, "bench", coll); err != nil {
				b.Fatal(err)
			}
			for j := range 1000 {
				writes = append(writes, models.JobWrite{CollectionID: coll.ID, Name: fmt.Sprintf("job%d", j),
					Definition: []byte(storedDef), MaxJobs: 1000})
			}
		}
		if _, err := store.SaveJobs(ctx, writes); err != nil {
			b.Fatal(err)
		}
	}
}

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
