package models_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// facetDef is a job definition with the parts the facets derive from: the
// request URI, the recurrence's time zone (none when zone is "") and the
// calendars it excludes (none when excludes is "").
func facetDef(uri, zone, excludes string) string {
	rec := `"frequency":"day"`
	if zone != "" {
		rec += `,"timeZone":"` + zone + `"`
	}
	if excludes != "" {
		rec += `,"calendars":{"exclude":[` + excludes + `]}`
	}
	return `{"action":{"type":"http","request":{"uri":"` + uri + `","method":"GET"}},"recurrence":{` + rec + `}}`
}

// jobFacet is a job's job_facets row (Excludes: calendar_excludes as
// text, "" for NULL; Found: the row exists).
type jobFacet struct {
	Search, Zone, Excludes string
	Found                  bool
}

// facetOf reads the job_facets row of job id.
func facetOf(t *testing.T, db *sql.DB, id int64) jobFacet {
	t.Helper()
	var f jobFacet
	err := db.QueryRow(`SELECT search, time_zone, coalesce(calendar_excludes::text, '') FROM job_facets WHERE job_id = $1`, id).
		Scan(&f.Search, &f.Zone, &f.Excludes)
	if err == sql.ErrNoRows {
		return f
	}
	if err != nil {
		t.Fatal(err)
	}
	f.Found = true
	return f
}

// TestJobFacetsFollowEveryWriter writes jobs through every writer of a
// job's name, definition or state note (SaveJob, SaveJobs, ApplyImport,
// SetJobState, SetJobsState) and checks after each that the
// job's facets (migration 0025) are those of its new row, and at the end,
// after the other writes of jobs too (run now, delete), that every job
// has its facets and none is stale.
func TestJobFacetsFollowEveryWriter(t *testing.T) {
	f := newPagesFixture(t)
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := f.collection("default", "facets", "Enabled")
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	want := func(id int64, search, zone, excludes string) {
		t.Helper()
		got := facetOf(t, db, id)
		if w := (jobFacet{Search: search, Zone: zone, Excludes: excludes, Found: true}); got != w {
			t.Errorf("facets of job %d = %+v, want %+v", id, got, w)
		}
	}
	pad := strings.Repeat(" ", 8) // the separators of the empty targets after the URI, before the note

	// SaveJob: a new job, then its definition's URI, time zone and
	// calendars changed, then a write under the name in other case (the
	// stored name stays).
	j, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "Alpha",
		Definition: []byte(facetDef("https://One.example/a", "Europe/Berlin", `"Holidays-DE"`)), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want(j.ID, "alpha https://one.example/a"+pad, "Europe/Berlin", `["holidays-de"]`)
	if _, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "ALPHA",
		Definition: []byte(facetDef("https://two.example/b", "", `"X", "y"`)), Now: now}); err != nil {
		t.Fatal(err)
	}
	want(j.ID, "alpha https://two.example/b"+pad, "", `["x", "y"]`)
	if _, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "alpha",
		Definition: []byte(facetDef("https://two.example/b", "UTC", "")), Now: now}); err != nil {
		t.Fatal(err)
	}
	want(j.ID, "alpha https://two.example/b"+pad, "UTC", "")

	// SaveJob creating a disabled job with a note; SetJobState changes the
	// note, then enabling clears it.
	d, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: c.ID, Name: "Paused",
		Definition: []byte(facetDef("https://p.example/", "", "")), State: "disabled", StateNote: "Vendor Maintenance", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want(d.ID, "paused https://p.example/"+pad+"vendor maintenance", "", "")
	if _, err := f.store.SetJobState(f.ctx, d.ID, models.JobStateWrite{Note: "Until Monday", By: "ada", Now: now}); err != nil {
		t.Fatal(err)
	}
	want(d.ID, "paused https://p.example/"+pad+"until monday", "", "")
	if _, err := f.store.SetJobState(f.ctx, d.ID, models.JobStateWrite{Enabled: true, By: "ada", Now: now}); err != nil {
		t.Fatal(err)
	}
	want(d.ID, "paused https://p.example/"+pad, "", "")

	// SaveJobs, and an import of many (more than one statement's chunk).
	created, err := f.store.SaveJobs(f.ctx, []models.JobWrite{
		{CollectionID: c.ID, Name: "alpha", Definition: []byte(facetDef("https://three.example/", "Asia/Tokyo", "")), Now: now},
		{CollectionID: c.ID, Name: "Beta", Definition: []byte(facetDef("https://beta.example/", "", `"Cal"`)), State: "disabled", StateNote: "Why", Now: now},
	})
	if err != nil || created[0] || !created[1] {
		t.Fatalf("SaveJobs = %v, %v", created, err)
	}
	want(j.ID, "alpha https://three.example/"+pad, "Asia/Tokyo", "")
	beta, err := f.store.JobByName(f.ctx, c.ID, "beta")
	if err != nil {
		t.Fatal(err)
	}
	want(beta.ID, "beta https://beta.example/"+pad+"why", "", `["cal"]`)
	var batch models.ImportBatch
	batch.Collections = []models.ImportCollection{{Ref: models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "imported"}}}
	const many = 2500
	for i := range many {
		batch.Jobs = append(batch.Jobs, models.ImportJob{Write: models.JobWrite{Name: fmt.Sprintf("Imp-%d", i),
			Definition: []byte(facetDef(fmt.Sprintf("https://imp.example/%d", i), "America/New_York", `"Imp"`)), Now: now}})
	}
	res, err := f.store.ApplyImport(f.ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM jobs j JOIN job_facets f ON f.job_id = j.id
		WHERE j.job_collection_id = $1 AND f.search = lower(j.name) || ' https://imp.example/' || split_part(j.name, '-', 2) || $2
		  AND f.time_zone = 'America/New_York' AND f.calendar_excludes = '["imp"]'`, res.CollectionIDs[0], pad).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != many {
		t.Errorf("%d of the %d imported jobs have their facets", n, many)
	}

	// SaveJob again, with a job whose facets have no calendars.
	pj := saveJob(t, f.store, models.JobWrite{CollectionID: c.ID, Name: "Put", Definition: []byte(facetDef("https://put.example/", "Europe/Paris", ""))})
	want(pj.ID, "put https://put.example/"+pad, "Europe/Paris", "")

	// Bulk: disable with a note, run now, delete.
	ids := []int64{j.ID, beta.ID, pj.ID}
	if _, err := f.store.SetJobsState(f.ctx, ids, models.JobStateWrite{Note: "Bulk Note", By: "ada", Now: now}); err != nil {
		t.Fatal(err)
	}
	want(pj.ID, "put https://put.example/"+pad+"bulk note", "Europe/Paris", "")
	want(beta.ID, "beta https://beta.example/"+pad+"bulk note", "", `["cal"]`)
	if _, err := f.store.SetJobsState(f.ctx, ids[:1], models.JobStateWrite{Enabled: true, By: "ada", Now: now}); err != nil {
		t.Fatal(err)
	}
	want(j.ID, "alpha https://three.example/"+pad, "Asia/Tokyo", "")
	if _, err := f.store.RunJobsNow(f.ctx, ids, now); err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteJobs(f.ctx, []int64{pj.ID}); err != nil {
		t.Fatal(err)
	}
	if got := facetOf(t, db, pj.ID); got.Found {
		t.Errorf("a deleted job keeps its facets: %+v", got)
	}
	testdb.CheckFacets(t, db)

	// The readers see the facets: the search, the time zone filter and
	// the calendar's jobs.
	cs, _, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		p    models.JobSearchParams
		want int
	}{
		{models.JobSearchParams{Query: "bulk note"}, 1},
		{models.JobSearchParams{Query: "three.example"}, 1},
		{models.JobSearchParams{Zone: "asia/tokyo"}, 1},
		{models.JobSearchParams{Zone: "America/New_York", Query: "imp-24"}, 111},
		{models.JobSearchParams{Query: "imp.example/7"}, 1 + 10 + 100},
	} {
		q.p.Collections, q.p.Limit = cs, 1000
		page, err := f.store.SearchJobs(f.ctx, q.p)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Rows) != q.want {
			t.Errorf("SearchJobs(%q, zone %q) found %d jobs, want %d", q.p.Query, q.p.Zone, len(page.Rows), q.want)
		}
	}
	// A word that names a collection too ("imported"), with one that
	// only facets match: every path of the search finds the same jobs —
	// the sparse search (one page of all), a walk page by page, the bulk
	// selection and both counts.
	p := models.JobSearchParams{Collections: cs, Query: "imported imp-24", Limit: 1000}
	page, err := f.store.SearchJobs(f.ctx, p)
	if err != nil || len(page.Rows) != 111 {
		t.Errorf("SearchJobs(imported imp-24) = %d rows, %v; want 111", len(page.Rows), err)
	}
	p.Limit = 40
	walked := 0
	for range 10 {
		page, err := f.store.SearchJobs(f.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		walked += len(page.Rows)
		if len(page.Rows) < p.Limit {
			break
		}
		c := page.Rows[len(page.Rows)-1].Cursor(p.Sort)
		p.After = &c
	}
	if walked != 111 {
		t.Errorf("SearchJobs(imported imp-24) by pages of 40 = %d rows, want 111", walked)
	}
	p.After = nil
	if bulk, err := f.store.SearchBulkJobs(f.ctx, p, 500); err != nil || len(bulk) != 111 {
		t.Errorf("SearchBulkJobs(imported imp-24) = %d, %v; want 111", len(bulk), err)
	}
	for _, dense := range []bool{false, true} {
		if n, err := f.store.CountSearchJobs(f.ctx, p, 500, dense); err != nil || n != 111 {
			t.Errorf("CountSearchJobs(imported imp-24, dense %v) = %d, %v; want 111", dense, n, err)
		}
	}
	refs, err := f.store.JobsUsingCalendar(f.ctx, "default", "CAL")
	if err != nil || len(refs) != 1 || refs[0].ID != beta.ID {
		t.Errorf("JobsUsingCalendar(CAL) = %v, %v; want beta", refs, err)
	}
}

// TestEngineStatementsLeaveJobFacets checks that the engine's store
// queries (models/engine_*.go, run per execution) never touch job_facets:
// the facets are off the hot path (migration 0025).
func TestEngineStatementsLeaveJobFacets(t *testing.T) {
	files, err := filepath.Glob("engine_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no engine files: %v", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"job_facets", "refreshJobFacets"} {
			if strings.Contains(string(src), s) {
				t.Errorf("%s mentions %s: the engine's statements must not touch the facets", name, s)
			}
		}
	}
}
