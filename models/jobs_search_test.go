package models_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// searchFixture is a database with jobs in two collections of "default"
// (a member's) and one of "other" (not the user's).
type searchFixture struct {
	*pagesFixture
	byName map[string]*models.Job
}

func newSearchFixture(t *testing.T) *searchFixture {
	f := &searchFixture{pagesFixture: newPagesFixture(t), byName: map[string]*models.Job{}}
	billing := f.collection("default", "billing", "Enabled")
	reports := f.collection("default", "reports", "Enabled")
	hidden := f.collection("other", "secret", "Enabled")
	add := func(c *models.JobCollection, name, state, uri, zone string, next *time.Time) {
		def := map[string]any{"action": map[string]any{"type": "https", "request": map[string]any{"uri": uri, "method": "POST"}}}
		if zone != "" {
			def["recurrence"] = map[string]any{"frequency": "hour", "interval": 1, "timeZone": zone}
		}
		b, _ := json.Marshal(def)
		f.byName[name] = saveJob(t, f.store, models.JobWrite{CollectionID: c.ID, Name: name, Definition: b, State: jobdef.State(state), NextRunAt: next})
	}
	n1, n2 := at(10), at(20)
	add(billing, "invoice-run", "enabled", "https://pay.example.com/api/invoices", "Europe/Berlin", &n1)
	add(billing, "Dunning", "disabled", "https://pay.example.com/api/dunning", "", nil)
	add(reports, "weekly-report", "enabled", "https://reports.example.org/weekly", "UTC", &n2)
	add(reports, "cleanup", "enabled", "https://ops.internal/purge_100%", "Europe/Berlin", &n1)
	add(hidden, "invoice-secret", "enabled", "https://pay.example.com/hidden", "", &n1)
	return f
}

func (f *searchFixture) search(p models.JobSearchParams) []string {
	f.t.Helper()
	cs, all, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if p.Collections == nil {
		p.Collections, p.AllCollections = cs, all
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	page, err := f.store.SearchJobs(f.ctx, p)
	if err != nil {
		f.t.Fatal(err)
	}
	var names []string
	for _, r := range page.Rows {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return names
}

func TestSearchJobsMatchesNameCollectionHostPathAndFilters(t *testing.T) {
	f := newSearchFixture(t)
	f.history(f.byName["invoice-run"], time.Now().Add(-time.Hour), "Failed", "MainAction", 0)
	f.history(f.byName["cleanup"], time.Now().Add(-48*time.Hour), "Failed", "MainAction", 0)
	f.history(f.byName["cleanup"], time.Now().Add(-47*time.Hour), "Completed", "MainAction", 0)
	cases := []struct {
		name string
		p    models.JobSearchParams
		want []string
	}{
		{"everything the user sees", models.JobSearchParams{}, []string{"Dunning", "cleanup", "invoice-run", "weekly-report"}},
		{"name, any case", models.JobSearchParams{Query: "INVOICE"}, []string{"invoice-run"}},
		{"collection", models.JobSearchParams{Query: "billing"}, []string{"Dunning", "invoice-run"}},
		{"resource group/collection", models.JobSearchParams{Query: "rg/rep"}, []string{"cleanup", "weekly-report"}},
		{"host", models.JobSearchParams{Query: "pay.example"}, []string{"Dunning", "invoice-run"}},
		{"path", models.JobSearchParams{Query: "/weekly"}, []string{"weekly-report"}},
		{"wildcards are literal", models.JobSearchParams{Query: "100%"}, []string{"cleanup"}},
		{"underscore is literal", models.JobSearchParams{Query: "e_r"}, nil},
		{"every word", models.JobSearchParams{Query: "pay dunning"}, []string{"Dunning"}},
		{"word in collection and word in path", models.JobSearchParams{Query: "billing invoices"}, []string{"invoice-run"}},
		{"no match", models.JobSearchParams{Query: "nothing-like-it"}, nil},
		{"state", models.JobSearchParams{States: []string{"disabled"}}, []string{"Dunning"}},
		{"states", models.JobSearchParams{States: []string{"disabled", "enabled"}}, []string{"Dunning", "cleanup", "invoice-run", "weekly-report"}},
		{"last result failed", models.JobSearchParams{LastResult: "Failed"}, []string{"invoice-run"}},
		{"last result completed", models.JobSearchParams{LastResult: "Completed"}, []string{"cleanup"}},
		{"never ran", models.JobSearchParams{LastResult: "none"}, []string{"Dunning", "weekly-report"}},
		{"zone", models.JobSearchParams{Zone: "europe/berlin"}, []string{"cleanup", "invoice-run"}},
		{"UTC includes no zone", models.JobSearchParams{Zone: "UTC"}, []string{"Dunning", "weekly-report"}},
		{"failed in 24 h", models.JobSearchParams{FailedSince: time.Now().Add(-24 * time.Hour)}, []string{"invoice-run"}},
		{"one collection", models.JobSearchParams{Collections: []models.VisibleCollection{{ID: f.byName["cleanup"].JobCollectionID}}}, []string{"cleanup", "weekly-report"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.search(c.p); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	t.Run("recent failures and last result", func(t *testing.T) {
		cs, all, _ := f.store.SearchScope(f.ctx, f.user.ID)
		page, err := f.store.SearchJobs(f.ctx, models.JobSearchParams{Collections: cs, AllCollections: all, Query: "invoice-run",
			Limit: 5, FailuresSince: time.Now().Add(-24 * time.Hour)})
		rows := page.Rows
		if err != nil || len(rows) != 1 {
			t.Fatalf("rows %v, %v", rows, err)
		}
		r := rows[0]
		if r.RecentFailures != 1 || r.LastStatus == nil || *r.LastStatus != "Failed" || r.Collection != "billing" ||
			r.ResourceGroup != "rg" || r.WorkspaceID != "default" || len(r.Definition) == 0 {
			t.Errorf("row %+v", r)
		}
	})
}

func TestSearchJobsSeesOnlyMembersWorkspacesUnlessMemberOfAll(t *testing.T) {
	f := newSearchFixture(t)
	if got := f.search(models.JobSearchParams{Query: "secret"}); got != nil {
		t.Errorf("a job of another workspace found: %v", got)
	}
	f.joinOther()
	cs, all, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil || !all || len(cs) != 3 {
		t.Fatalf("scope %v %v %v", cs, all, err)
	}
	if got := f.search(models.JobSearchParams{Query: "secret"}); !slices.Equal(got, []string{"invoice-secret"}) {
		t.Errorf("member of every workspace: %v", got)
	}
}

// TestSearchJobsKeysetVisitsEveryJobOnce pages through 60 jobs with many
// equal keys (next runs, last runs, names in two collections, failure
// counts, and jobs without a next or last run) in every order.
func TestSearchJobsKeysetVisitsEveryJobOnce(t *testing.T) {
	f := newPagesFixture(t)
	c1, c2 := f.collection("default", "one", "Enabled"), f.collection("default", "two", "Enabled")
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[int64]bool{}
	for i := range 30 {
		for _, c := range []*models.JobCollection{c1, c2} {
			var next *time.Time
			if i%4 != 0 {
				n := at(i % 3)
				next = &n
			}
			j := f.job(c, fmt.Sprintf("job-%d", i%10), "enabled", next)
			if _, err := db.Exec(`WITH r AS (UPDATE job_results SET failure_count = $1 WHERE job_id = $4)
				UPDATE jobs SET last_run_at = CASE WHEN $2 THEN NULL ELSE $3::timestamptz END WHERE id = $4`,
				i%3, i%5 == 0, at(-(i % 2)), j.ID); err != nil {
				t.Fatal(err)
			}
			want[j.ID] = true
		}
	}
	cs, _, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sort := range models.JobSorts {
		for _, all := range []bool{false, true} {
			seen := map[int64]bool{}
			p := models.JobSearchParams{Collections: cs, AllCollections: all, Sort: sort, Limit: 7}
			var prev *models.JobSearchRow
			for pages := 0; ; pages++ {
				if pages > 20 {
					t.Fatalf("%s: paging does not end", sort)
				}
				page, err := f.store.SearchJobs(f.ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				rows := page.Rows
				if len(rows) == 0 {
					break
				}
				for i := range rows {
					r := &rows[i]
					if seen[r.ID] {
						t.Errorf("%s: job %d twice", sort, r.ID)
					}
					seen[r.ID] = true
					if prev != nil && !inOrder(sort, prev, r) {
						t.Errorf("%s: %+v before %+v", sort, prev.Cursor(sort), r.Cursor(sort))
					}
					prev = r
				}
				cur := rows[len(rows)-1].Cursor(sort)
				p.After = &cur
			}
			if len(seen) != len(want) {
				t.Errorf("%s (all %v): %d jobs over all pages, want %d", sort, all, len(seen), len(want))
			}
		}
	}
}

// inOrder reports whether a comes before b in order sort.
func inOrder(sort models.JobSort, a, b *models.JobSearchRow) bool {
	ka, kb := a.Cursor(sort), b.Cursor(sort)
	tm := func(t *time.Time, none time.Time) time.Time {
		if t == nil {
			return none
		}
		return *t
	}
	late, early := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}
	switch sort {
	case models.SortNext:
		x, y := tm(ka.Time, late), tm(kb.Time, late)
		return x.Before(y) || x.Equal(y) && ka.ID < kb.ID
	case models.SortLast:
		x, y := tm(ka.Time, early), tm(kb.Time, early)
		return x.After(y) || x.Equal(y) && ka.ID > kb.ID
	case models.SortName:
		return ka.Name < kb.Name || ka.Name == kb.Name && ka.ID < kb.ID
	default:
		return ka.Count > kb.Count || ka.Count == kb.Count && ka.ID > kb.ID
	}
}

// TestSearchJobsLastResultFindsEveryMatch filters 2,100 jobs by last
// result (job_results.last_status, migrations 0023 and 0029): one page finds the matches
// wherever they are in the order, an entry written late with an older
// start time does not replace the last result, and the next page
// continues after the last row.
func TestSearchJobsLastResultFindsEveryMatch(t *testing.T) {
	f := newPagesFixture(t)
	c := f.collection("default", "many", "Enabled")
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at)
		SELECT $1, 'job-' || g, '{"action":{"type":"http","request":{"uri":"http://x","method":"GET"}}}', 'enabled', $2::timestamptz + g * interval '1 minute'
		FROM generate_series(1, 2100) g RETURNING id)
		INSERT INTO job_results (job_id) SELECT id FROM j`, c.ID, at(0)); err != nil {
		t.Fatal(err)
	}
	history := func(name, status string, start time.Time) {
		t.Helper()
		j, err := f.store.JobByName(f.ctx, c.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.AddHistory(f.ctx, &models.HistoryEntry{JobID: j.ID, StartTime: start, ExpectedExecutionTime: start,
			ActionName: models.MainAction, Status: models.HistoryStatus(status)}); err != nil {
			t.Fatal(err)
		}
	}
	history("job-5", "Failed", at(-5))
	history("job-5", "Completed", at(-6)) // older, written later
	history("job-2050", "Completed", at(-7))
	history("job-2050", "Failed", at(-5))
	history("job-7", "Failed", at(-7))
	history("job-7", "Completed", at(-5))
	cs, _, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := models.JobSearchParams{Collections: cs, LastResult: "Failed", Limit: 1}
	var found []string
	for pages := 0; pages < 5; pages++ {
		page, err := f.store.SearchJobs(f.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Rows {
			found = append(found, r.Name)
		}
		if len(page.Rows) < p.Limit {
			break
		}
		c := page.Rows[len(page.Rows)-1].Cursor(p.Sort)
		p.After = &c
	}
	if !slices.Equal(found, []string{"job-5", "job-2050"}) {
		t.Errorf("found %v, want [job-5 job-2050]", found)
	}
}
