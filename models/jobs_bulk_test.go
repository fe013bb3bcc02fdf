package models_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// bulkFixture is the search fixture's database with one more job of
// "default" in each final state.
type bulkFixture struct {
	*searchFixture
}

func newBulkFixture(t *testing.T) *bulkFixture {
	f := &bulkFixture{newSearchFixture(t)}
	c := f.collection("default", "ops", "Enabled")
	for name, state := range map[string]jobdef.State{"done": jobdef.Completed, "broken": jobdef.Faulted} {
		ended := at(-60)
		f.byName[name] = saveJob(t, f.store, models.JobWrite{CollectionID: c.ID, Name: name, State: state, EndedAt: &ended,
			Definition: []byte(`{"action":{"type":"http","request":{"uri":"https://example.com","method":"GET"}}}`)})
	}
	return f
}

// ids are the ids of the jobs names.
func (f *bulkFixture) ids(names ...string) []int64 {
	var out []int64
	for _, n := range names {
		out = append(out, f.byName[n].ID)
	}
	return out
}

// state reads back a job.
func (f *bulkFixture) state(name string) *models.Job {
	f.t.Helper()
	j, err := f.store.JobByName(f.ctx, f.byName[name].JobCollectionID, name)
	if err != nil {
		f.t.Fatal(err)
	}
	return j
}

func TestSetJobsStateDisablesWithANoteAndEnablingClearsIt(t *testing.T) {
	f := newBulkFixture(t)
	now := at(30)
	res, err := f.store.SetJobsState(f.ctx, f.ids("invoice-run", "Dunning", "done", "invoice-run"),
		models.JobStateWrite{Note: "vendor maintenance", By: "alice", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, string(r.Before)+":"+string(r.Outcome))
	}
	want := []string{"enabled:changed", "disabled:noteChanged", "completed:finished"}
	if !slices.Equal(got, want) {
		t.Errorf("outcomes = %v, want %v (repeats once)", got, want)
	}
	for _, name := range []string{"invoice-run", "Dunning"} {
		j := f.state(name)
		if j.State != jobdef.Disabled || j.StateNote != "vendor maintenance" || j.StateChangedBy != "alice" ||
			j.StateChangedAt == nil || !j.StateChangedAt.Equal(now) || j.NextRunAt != nil {
			t.Errorf("%s = %s %q by %q at %v next %v, want disabled with the note by alice at %v, no next run",
				name, j.State, j.StateNote, j.StateChangedBy, j.StateChangedAt, j.NextRunAt, now)
		}
	}
	if j := f.state("done"); j.State != jobdef.Completed || j.StateNote != "" || j.StateChangedAt != nil {
		t.Errorf("done = %s %q %v, want completed and untouched", j.State, j.StateNote, j.StateChangedAt)
	}

	// The same note again changes nothing, not even who and when.
	res, err = f.store.SetJobsState(f.ctx, f.ids("invoice-run"), models.JobStateWrite{Note: "vendor maintenance", By: "bob", Now: at(40)})
	if err != nil || res[0].Outcome != models.StateUnchanged {
		t.Fatalf("again = %v, %v; want unchanged", res, err)
	}
	if j := f.state("invoice-run"); j.StateChangedBy != "alice" {
		t.Errorf("StateChangedBy = %q after an unchanged write, want alice", j.StateChangedBy)
	}

	// Enabling clears the note and schedules the job from now.
	later := at(50)
	res, err = f.store.SetJobsState(f.ctx, f.ids("invoice-run"), models.JobStateWrite{Enabled: true, By: "bob", Now: later})
	if err != nil || res[0].Outcome != models.StateChanged {
		t.Fatalf("enable = %v, %v", res, err)
	}
	j := f.state("invoice-run")
	if j.State != jobdef.Enabled || j.StateNote != "" || j.StateChangedBy != "bob" || !j.StateChangedAt.Equal(later) ||
		j.ScheduleBase == nil || !j.ScheduleBase.Equal(later) || !j.NeedsSchedule {
		t.Errorf("enabled job = %+v, want enabled, no note, by bob at %v, scheduled from then", j, later)
	}
	// The engine's SetJobEnabled leaves a disabled job's note alone.
	if err := f.store.SetJobEnabled(f.ctx, f.byName["Dunning"].ID, false, at(60)); err != nil {
		t.Fatal(err)
	}
	if j := f.state("Dunning"); j.StateNote != "vendor maintenance" {
		t.Errorf("note after SetJobEnabled(false) = %q, want it kept", j.StateNote)
	}
}

// TestBulkWritesChangeNothingWhenOneFails checks that each bulk write is
// one transaction: an id that is not a job in the middle of the
// selection, or a write the database refuses, leaves every job as it was.
func TestBulkWritesChangeNothingWhenOneFails(t *testing.T) {
	f := newBulkFixture(t)
	sel := append(f.ids("invoice-run", "weekly-report"), 987654321, f.byName["cleanup"].ID)
	if _, err := f.store.SetJobsState(f.ctx, sel, models.JobStateWrite{Note: "x", By: "alice", Now: at(1)}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("SetJobsState with a missing id = %v, want ErrNotFound", err)
	}
	if _, err := f.store.RunJobsNow(f.ctx, sel, at(1)); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("RunJobsNow with a missing id = %v, want ErrNotFound", err)
	}
	if err := f.store.DeleteJobs(f.ctx, sel); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("DeleteJobs with a missing id = %v, want ErrNotFound", err)
	}
	// The database refuses the write itself (who is over 200 characters):
	// the jobs locked before it stay as they were.
	if _, err := f.store.SetJobsState(f.ctx, f.ids("invoice-run", "weekly-report"),
		models.JobStateWrite{Note: "x", By: strings.Repeat("a", 201), Now: at(1)}); err == nil {
		t.Error("SetJobsState with a 201-character name succeeded")
	}
	for _, name := range []string{"invoice-run", "weekly-report", "cleanup"} {
		j := f.state(name)
		if j.State != jobdef.Enabled || j.StateNote != "" {
			t.Errorf("%s = %s %q after failed bulk writes, want enabled without a note", name, j.State, j.StateNote)
		}
		if a, err := f.store.Attempts(f.ctx, j.ID); err != nil || len(a) != 0 {
			t.Errorf("%s attempts = %v, %v; want none", name, a, err)
		}
	}
}

func TestRunJobsNowQueuesTheEnabledJobsOnly(t *testing.T) {
	f := newBulkFixture(t)
	res, err := f.store.RunJobsNow(f.ctx, f.ids("invoice-run", "Dunning", "broken", "cleanup"), at(5))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || res[0].Attempt == 0 || res[3].Attempt == 0 ||
		!errors.Is(res[1].Refused, models.ErrJobNotEnabled) || !errors.Is(res[2].Refused, models.ErrJobFinished) {
		t.Fatalf("results = %+v, want attempts for invoice-run and cleanup, refusals for Dunning and broken", res)
	}
	a, err := f.store.Attempts(f.ctx, f.byName["invoice-run"].ID)
	if err != nil || len(a) != 1 || a[0].ID != res[0].Attempt || a[0].Status != "pending" {
		t.Errorf("attempts of invoice-run = %+v, %v; want the pending attempt %d", a, err, res[0].Attempt)
	}
	if a, _ := f.store.Attempts(f.ctx, f.byName["Dunning"].ID); len(a) != 0 {
		t.Errorf("the disabled job got attempts %+v", a)
	}
}

func TestDeleteJobsAndFindBulkJobs(t *testing.T) {
	f := newBulkFixture(t)
	cs, all, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The hidden job of "other" is not found among the user's collections.
	found, missing, err := f.store.BulkJobsByID(f.ctx, cs, append(f.ids("cleanup", "invoice-secret", "cleanup"), 424242))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Path() != "default/rg/reports/cleanup" || !slices.Equal(missing, []int64{f.byName["invoice-secret"].ID, 424242}) {
		t.Errorf("BulkJobsByID = %+v, missing %v", found, missing)
	}
	byName, gone, err := f.store.BulkJobsByName(f.ctx, []models.JobName{
		{CollectionID: f.byName["Dunning"].JobCollectionID, Name: "dunning"}, {CollectionID: f.byName["Dunning"].JobCollectionID, Name: "nope"}})
	if err != nil || len(byName) != 1 || byName[0].Name != "Dunning" || !slices.Equal(gone, []int{1}) {
		t.Errorf("BulkJobsByName = %+v, %v, %v", byName, gone, err)
	}
	// Every job the search selects, and how many.
	p := models.JobSearchParams{Collections: cs, AllCollections: all, Query: "pay", States: []string{"enabled", "disabled"}}
	refs, err := f.store.SearchBulkJobs(f.ctx, p, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range refs {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"Dunning", "invoice-run"}) {
		t.Errorf("SearchBulkJobs = %v, want Dunning, invoice-run", names)
	}
	if n, err := f.store.CountSearchJobs(f.ctx, p, 1, false); err != nil || n != 2 {
		t.Errorf("CountSearchJobs up to 1 = %d, %v; want 2 (one more than the limit)", n, err)
	}
	// The state note is searchable.
	if _, err := f.store.SetJobsState(f.ctx, f.ids("cleanup"), models.JobStateWrite{Note: "Vendor maintenance", By: "a", Now: at(1)}); err != nil {
		t.Fatal(err)
	}
	if got := f.search(models.JobSearchParams{Query: "vendor"}); !slices.Equal(got, []string{"cleanup"}) {
		t.Errorf("search for the note = %v, want cleanup", got)
	}

	f.history(f.byName["cleanup"], time.Now(), "Failed", "MainAction", 0)
	if err := f.store.DeleteJobs(f.ctx, f.ids("cleanup", "Dunning")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.JobsByID(f.ctx, f.ids("cleanup")); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("JobsByID of a deleted job = %v, want ErrNotFound", err)
	}
	if js, err := f.store.JobsByID(f.ctx, f.ids("weekly-report", "invoice-run")); err != nil || len(js) != 2 {
		t.Errorf("JobsByID = %d jobs, %v; want 2", len(js), err)
	}
}
