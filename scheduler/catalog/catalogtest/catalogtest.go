// Package catalogtest builds the rows tests need (collections, jobs)
// through the write service, as every writer does: a job it makes has its
// secrets sealed, its facets and results rows, its audit entry and its
// first run planned at the catalog's clock, exactly as one made by the
// API. Tests outside the catalog use it instead of writing rows with the
// store. It is for tests only.
//
// Each builder takes the test, the *catalog.Catalog to write through (its
// clock is the one that plans) and options whose zero fields take
// defaults; a write that fails fails the test at once.
package catalogtest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// Actor is the actor the builders write as: Sked's own actor named "test"
// (trusted as owner in every workspace; audited as a system actor).
var Actor = catalog.System("test")

// seq numbers the default names, unique in the process.
var seq atomic.Int64

// next returns prefix followed by a number not returned before.
func next(prefix string) string { return fmt.Sprintf("%s%d", prefix, seq.Add(1)) }

// CollectionOpts are the options of Collection. The zero value makes a
// collection of the default workspace.
type CollectionOpts struct {
	// WorkspaceID defaults to models.DefaultWorkspaceID, which is created
	// (with an administrator, as by the first-run setup) when the database
	// has no workspace yet.
	WorkspaceID string
	// ResourceGroup defaults to "rg".
	ResourceGroup string
	// Name defaults to "c" and a number unique in the process.
	Name string
	// Body is the collection's ARM body. It defaults to a P20Premium
	// collection holding up to 1,000 jobs, each running as often as every
	// minute.
	Body string
}

// DefaultCollectionBody is the body of Collection when
// CollectionOpts.Body is empty.
const DefaultCollectionBody = `{"properties":{"sku":{"name":"P20Premium"},"quota":{"maxJobCount":1000}}}`

// Collection creates a collection through cat as opts say and returns it.
func Collection(t testing.TB, cat *catalog.Catalog, opts CollectionOpts) *models.CollectionRow {
	t.Helper()
	ctx := context.Background()
	if opts.WorkspaceID == "" {
		opts.WorkspaceID = models.DefaultWorkspaceID
		defaultWorkspace(t, cat)
	}
	if opts.ResourceGroup == "" {
		opts.ResourceGroup = "rg"
	}
	if opts.Name == "" {
		opts.Name = next("c")
	}
	if opts.Body == "" {
		opts.Body = DefaultCollectionBody
	}
	ref := models.CollectionRef{WorkspaceID: opts.WorkspaceID, ResourceGroup: opts.ResourceGroup, Name: opts.Name}
	row, _, err := cat.PutCollection(ctx, Actor, ref, []byte(opts.Body))
	if err != nil {
		t.Fatalf("catalogtest: collection %s/%s: %v", opts.ResourceGroup, opts.Name, err)
	}
	return row
}

// AdminName is the user name of the administrator Collection creates
// with the default workspace.
const AdminName = "catalogtest-admin"

// defaultWorkspace creates the default workspace with its administrator
// AdminName unless that user exists already.
func defaultWorkspace(t testing.TB, cat *catalog.Catalog) {
	t.Helper()
	_, err := cat.CreateUser(context.Background(), Actor,
		models.NewUser{Username: AdminName, Password: "catalogtest-password", Admin: true})
	var taken *problem.List
	if err != nil && !errors.As(err, &taken) {
		t.Fatalf("catalogtest: default workspace: %v", err)
	}
}

// JobOpts are the options of Job.
type JobOpts struct {
	// Name defaults to "j" and a number unique in the process.
	Name string
	// Definition is the job's JSON, in either shape of SPEC §1 (the
	// properties, or {"properties": …}). Required.
	Definition string
}

// Job creates (or replaces) a job of coll through cat as opts say and
// returns it as stored.
func Job(t testing.TB, cat *catalog.Catalog, coll *models.CollectionRow, opts JobOpts) *models.Job {
	t.Helper()
	if opts.Definition == "" {
		t.Fatal("catalogtest: a job needs a definition")
	}
	if opts.Name == "" {
		opts.Name = next("j")
	}
	j, _, err := cat.PutJob(context.Background(), Actor, coll, opts.Name, []byte(opts.Definition))
	if err != nil {
		t.Fatalf("catalogtest: job %s: %v", opts.Name, err)
	}
	return j
}
