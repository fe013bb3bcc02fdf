package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

const storedDef = `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"enabled"}`

// TestSaveJobQuotaHoldsUnderConcurrency has 20 writers race to create jobs
// in a collection allowing 5: exactly 5 succeed, the others get a
// QuotaError naming maxJobCount.
func TestSaveJobQuotaHoldsUnderConcurrency(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store, "rg", "jc")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: fmt.Sprintf("job%d", i),
				Definition: []byte(storedDef), MaxJobs: 5})
		}()
	}
	wg.Wait()
	ok, winner := 0, ""
	for i, err := range errs {
		if err == nil {
			winner = fmt.Sprintf("JOB%d", i)
		}
		var qe *models.QuotaError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &qe) && qe.Quota == "maxJobCount" && errors.Is(err, models.ErrConflict):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if n, _ := store.CountJobs(ctx, coll.ID); ok != 5 || n != 5 {
		t.Errorf("%d writes succeeded, %d jobs exist; want 5 and 5", ok, n)
	}
	// Replacing an existing job is not a new job: the quota allows it.
	if _, created, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: winner, Definition: []byte(storedDef), MaxJobs: 5}); err != nil || created {
		t.Errorf("replace %s at the quota: %v (created %v)", winner, err, created)
	}
}

func TestSaveJobSealsSecretsAndFinishesState(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store, "rg", "jc")
	ctx := context.Background()
	secrets := jobdef.Secrets{"action.request.authentication.password#basic": "hunter2"}
	j, created, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "a", Definition: []byte(storedDef), Secrets: secrets, State: "completed"})
	if err != nil || !created || j.State != "completed" || j.EndedAt == nil || j.NextRunAt != nil {
		t.Fatalf("save: %v %v %+v", err, created, j)
	}
	got, err := store.JobSecrets(ctx, j.ID)
	if err != nil || got["action.request.authentication.password#basic"] != "hunter2" {
		t.Errorf("secrets: %v %v", got, err)
	}
	if _, err := store.JobSecrets(ctx, 424242); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "b", Definition: []byte(storedDef), MustExist: true}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("MustExist on a new job: %v", err)
	}
	if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: 999999, Name: "b", Definition: []byte(storedDef)}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown collection: %v", err)
	}
}

func TestResealSecretsAfterRotation(t *testing.T) {
	dsn := testdb.DSN(t)
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	old := testdb.Open(t, dsn, models.Options{SecretKeys: [][]byte{oldKey}})
	coll := newCollection(t, old, "rg", "jc")
	ctx := context.Background()
	j, _, err := old.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "a", Definition: []byte(storedDef),
		Secrets: jobdef.Secrets{"k#basic": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	rotated := testdb.Open(t, dsn, models.Options{SecretKeys: [][]byte{newKey, oldKey}})
	if n, err := rotated.ResealSecrets(ctx); err != nil || n != 1 {
		t.Fatalf("reseal: %d %v", n, err)
	}
	if n, _ := rotated.ResealSecrets(ctx); n != 0 {
		t.Errorf("second reseal re-encrypted %d", n)
	}
	onlyNew := testdb.Open(t, dsn, models.Options{SecretKeys: [][]byte{newKey}})
	if sec, err := onlyNew.JobSecrets(ctx, j.ID); err != nil || sec["k#basic"] != "v" {
		t.Errorf("after dropping the old key: %v %v", sec, err)
	}
}

func TestCountJobsUpTo(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store, "rg", "jc")
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: fmt.Sprintf("j%d", i), Definition: []byte(storedDef)}); err != nil {
			t.Fatal(err)
		}
	}
	for limit, want := range map[int]int64{0: 0, 2: 2, 4: 4, 51: 4} {
		if n, err := store.CountJobsUpTo(ctx, coll.ID, limit); err != nil || n != want {
			t.Errorf("up to %d: %d %v, want %d", limit, n, err, want)
		}
	}
}
