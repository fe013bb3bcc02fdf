package models_test

import (
	"context"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestExecutionBucketsCountEveryWrite checks that history_hours, kept on
// write (migration 0022), counts every entry in its hour: the current
// one, and an entry written late into an hour that ended long ago.
func TestExecutionBucketsCountEveryWrite(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	j, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "a", Definition: []byte(storedDef)})
	if err != nil {
		t.Fatal(err)
	}
	owner, err := store.UserByName(ctx, "owner")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	add := func(at time.Time, status string) {
		t.Helper()
		if err := store.AddHistory(ctx, &models.HistoryEntry{JobID: j.ID, StartTime: at, ExpectedExecutionTime: at,
			ActionName: "MainAction", Status: models.HistoryStatus(status)}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(now time.Time) map[int]int64 {
		t.Helper()
		bs, err := store.ExecutionBuckets(ctx, models.ExecutionBucketsParams{UserID: owner.ID, From: from, To: from.Add(4 * time.Hour), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]int64{}
		for _, b := range bs {
			out[b.Bucket] += b.Count
		}
		return out
	}
	add(from.Add(10*time.Minute), "Completed")
	add(from.Add(70*time.Minute), "Failed")
	now := from.Add(80 * time.Minute) // 09:20
	if got := count(now); got[0] != 1 || got[1] != 1 {
		t.Fatalf("first count %v", got)
	}
	add(from.Add(20*time.Minute), "Completed") // late into an hour that has ended
	add(from.Add(75*time.Minute), "Completed") // into the current hour
	if got := count(now); got[0] != 2 || got[1] != 2 {
		t.Errorf("second count %v: every write is counted in its hour", got)
	}
	if got := count(from.Add(4 * time.Hour)); got[0] != 2 || got[1] != 2 || got[2] != 0 {
		t.Errorf("later count %v", got)
	}
	// Deleting the job takes its executions out of the counts.
	if err := store.DeleteJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if got := count(now); len(got) != 0 {
		t.Errorf("count after deleting the job %v, want none", got)
	}
}
