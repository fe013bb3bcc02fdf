package models_test

import (
	"context"
	"errors"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// TestCreateJobNeverReplaces creates a job, then refuses another of the
// same name in any case (false, nothing written), and answers ErrNotFound
// for a collection that does not exist.
func TestCreateJobNeverReplaces(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store, "rg", "jc")
	ctx := context.Background()
	j, created, err := store.CreateJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "daily", Definition: []byte(storedDef)})
	if err != nil || !created || j == nil || j.Name != "daily" {
		t.Fatalf("the first creation: %+v, %v, %v", j, created, err)
	}
	other := `{"action":{"type":"http","request":{"uri":"https://example.com/other","method":"GET"}},"state":"enabled"}`
	j, created, err = store.CreateJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: "DAILY", Definition: []byte(other)})
	if err != nil || created || j != nil {
		t.Fatalf("a second creation of the name: %+v, %v, %v; want nil, false, nil", j, created, err)
	}
	stored, err := store.JobByName(ctx, coll.ID, "daily")
	if err != nil || stored.Name != "daily" || string(stored.Definition) != storedDef {
		t.Errorf("the job after the refused creation: %+v, %v", stored, err)
	}
	if _, _, err := store.CreateJob(ctx, models.JobWrite{CollectionID: coll.ID + 1000, Name: "daily", Definition: []byte(storedDef)}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a creation in a missing collection: %v, want ErrNotFound", err)
	}
}
