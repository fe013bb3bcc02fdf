package models_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// TestClaimReadsTheNextWakeInItsTransaction claims with NextWake on the
// real database: a claim that leaves workers free returns the next wake-up
// (the lease of the attempt it started, the earliest thing left), the same
// that NextWake reads after it; a claim that fills its limit does not read
// it; without NextWake nothing is read.
func TestClaimReadsTheNextWakeInItsTransaction(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var ids []int64
	for _, name := range []string{"a", "b"} {
		j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: name, Definition: json.RawMessage(storedDef)})
		if _, err := store.RunNow(ctx, j.ID, t0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	req := func(limit int, wake bool) models.ClaimRequest {
		return models.ClaimRequest{Now: t0, Owner: "inst", Limit: limit, NextWake: wake,
			Plan:  func(*models.EngineJob) *models.JobPlan { return nil },
			Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }}
	}

	full, err := store.Claim(ctx, req(1, true))
	if err != nil || len(full.Attempts) != 1 {
		t.Fatalf("claim of 1: %v %+v", err, full)
	}
	if a := full.Attempts[0]; a.JobCollectionID != coll.ID || a.SigningAt != nil {
		t.Errorf("claimed attempt's collection %d, signing %v; want %d, nil (the collection does not sign)",
			a.JobCollectionID, a.SigningAt, coll.ID)
	}
	if full.WakeRead {
		t.Errorf("a claim that filled its limit read the next wake-up: %+v", full)
	}

	rest, err := store.Claim(ctx, req(10, true))
	if err != nil || len(rest.Attempts) != 1 {
		t.Fatalf("claim of the rest: %v %+v", err, rest)
	}
	if !rest.WakeRead || !rest.HasNext {
		t.Fatalf("a claim that left workers free did not return the next wake-up: %+v", rest)
	}
	at, ok, err := store.NextWake(ctx, t0)
	if err != nil || !ok {
		t.Fatalf("NextWake: %v %v", ok, err)
	}
	// The lease ends an hour after the first claim by the database's
	// clock; on the caller's clock (which reads t0) it ends an hour after
	// t0 less the time that passed since the first claim (the database's
	// clock moved on, the caller's did not).
	lease := t0.Add(time.Hour)
	for name, got := range map[string]time.Time{"claim's next wake-up": rest.NextWake, "NextWake": at} {
		if got.After(lease) || got.Before(lease.Add(-time.Minute)) {
			t.Errorf("%s %s, want just before %s (the first lease to expire, on the caller's clock)", name, got, lease)
		}
	}
	if at.After(rest.NextWake) {
		t.Errorf("NextWake %s read after the claim is later than the claim's %s", at, rest.NextWake)
	}

	none, err := store.Claim(ctx, req(10, false))
	if err != nil || len(none.Attempts) != 0 || none.WakeRead {
		t.Errorf("claim without NextWake: %v %+v", err, none)
	}
}
