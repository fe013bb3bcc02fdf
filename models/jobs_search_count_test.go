package models_test

import (
	"testing"

	"sked/models"
)

// TestSearchJobsTellsHowItCounted checks what SearchJobs tells the bulk
// bar: a page found among the order's first jobs is Dense (and the count,
// told so, is still right), a search word matching few jobs comes with
// their count on the first page, and a later page or no search word
// leaves the count to CountSearchJobs.
func TestSearchJobsTellsHowItCounted(t *testing.T) {
	f := newSearchFixture(t)
	cs, all, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	params := func(q string, limit int) models.JobSearchParams {
		return models.JobSearchParams{Collections: cs, AllCollections: all, Query: q, Limit: limit}
	}
	// "example" matches three of the user's four jobs: a page of two is
	// found among the order's first jobs.
	dense, err := f.store.SearchJobs(f.ctx, params("example", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !dense.Dense || dense.Matches != -1 || len(dense.Rows) != 2 {
		t.Fatalf("dense page: Dense %v, Matches %d, %d rows; want true, -1, 2", dense.Dense, dense.Matches, len(dense.Rows))
	}
	for _, d := range []bool{true, false} {
		if n, err := f.store.CountSearchJobs(f.ctx, params("example", 2), 100, d); err != nil || n != 3 {
			t.Fatalf("CountSearchJobs(example, dense=%v) = %d, %v; want 3", d, n, err)
		}
	}
	// "pay.example.com" matches two: a page of ten is not filled by the
	// order's first jobs, so the matches are read through the trigram
	// index and counted on the way.
	sparse, err := f.store.SearchJobs(f.ctx, params("pay.example.com", 10))
	if err != nil {
		t.Fatal(err)
	}
	if sparse.Dense || sparse.Matches != 2 || len(sparse.Rows) != 2 {
		t.Fatalf("sparse page: Dense %v, Matches %d, %d rows; want false, 2, 2", sparse.Dense, sparse.Matches, len(sparse.Rows))
	}
	// Without a search word nothing is counted on the way.
	plain, err := f.store.SearchJobs(f.ctx, params("", 1))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Dense || plain.Matches != -1 {
		t.Fatalf("no search word: Dense %v, Matches %d; want false, -1", plain.Dense, plain.Matches)
	}
}
