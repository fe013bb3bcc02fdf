package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// Tests of the "All jobs" page (alljobs.go and web/present_alljobs.go).

// allJobsFixture has jobs in the collections default/rg/jc and
// default/ops/nightly, and the job "x" in a workspace the user is not a
// member of.
func allJobsFixture(t *testing.T) *pgFixture {
	f := newPGFixture(t)
	ref := models.CollectionRef{WorkspaceID: "default", ResourceGroup: "ops", Name: "nightly"}
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "Standard", State: models.CollectionEnabled}); err != nil {
		t.Fatal(err)
	}
	nightly, err := f.store.CollectionByRef(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	job := func(uri string) string {
		return strings.Replace(pgJobJSON, "https://example.com/hook", uri, 1)
	}
	a := f.putJob(f.coll, "invoices", job("https://pay.example.com/api/invoices"))
	f.schedule(a.ID, f.clock.Now().Add(30*time.Minute))
	f.addHistory(a.ID, f.clock.Now().Add(-time.Hour), models.StatusFailed, models.MainAction, 0, "HTTP 500")
	f.sql(`UPDATE jobs SET last_run_at = $1 WHERE id = $2`, f.clock.Now().Add(-time.Hour), a.ID)
	b := f.putJob(f.coll, "reports", job("https://reports.example.org/weekly"))
	f.schedule(b.ID, f.clock.Now().Add(10*time.Minute))
	f.addHistory(b.ID, f.clock.Now().Add(-2*time.Hour), models.StatusCompleted, models.MainAction, 0, "HTTP 200")
	f.sql(`UPDATE jobs SET last_run_at = $1 WHERE id = $2`, f.clock.Now().Add(-2*time.Hour), b.ID)
	f.putJob(nightly, "backup", job("https://backup.internal/run"))
	f.otherWorkspace()
	return f
}

func TestAllJobsPageListsEveryVisibleJob(t *testing.T) {
	f := allJobsFixture(t)
	r := f.get("/jobs")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find(`#nav-all-jobs[aria-current="page"]`).Length() != 1 {
		t.Error("the nav link All jobs is not the current page")
	}
	form := r.doc.Find("form#all-jobs-filter")
	if m, _ := form.Attr("method"); m != "get" {
		t.Errorf("the filter form's method is %q, want get", m)
	}
	for attr, want := range map[string]string{"hx-get": "/jobs", "hx-target": "#all-jobs-results", "hx-push-url": "true"} {
		if got, _ := form.Attr(attr); got != want {
			t.Errorf("form %s = %q, want %q", attr, got, want)
		}
	}
	if trig, _ := form.Attr("hx-trigger"); !strings.Contains(trig, "input changed delay:250ms") {
		t.Errorf("form hx-trigger = %q", trig)
	}
	for _, id := range []string{"all-jobs-q", "all-jobs-state", "all-jobs-result", "all-jobs-collection", "all-jobs-tz", "all-jobs-sort", "all-jobs-failed"} {
		if r.doc.Find(fmt.Sprintf(`label[for=%q]`, id)).Length() != 1 {
			t.Errorf("#%s has no label", id)
		}
	}
	names := pgTexts(r.doc.Find("#all-jobs-results tbody tr td:first-child"))
	if strings.Join(names, ",") != "reports,invoices,backup" {
		t.Fatalf("jobs %v, want [reports invoices backup] (soonest next run first, none last)", names)
	}
	row := r.doc.Find(`tr[data-job="invoices"]`)
	text := strings.Join(strings.Fields(row.Text()), " ")
	for _, want := range []string{"rg/jc", "default", "Enabled", "past every hour", "in 30 min", "Failed", "1 h ago"} {
		if !strings.Contains(text, want) {
			t.Errorf("row of invoices %q lacks %q", text, want)
		}
	}
	if href, _ := row.Find(`a[href="/c/default/rg/jc"]`).Attr("href"); href == "" {
		t.Error("no link to the collection")
	}
	if got := strings.TrimSpace(row.Find("td:last-child .text-red-700").Text()); got != "1" {
		t.Errorf("failures in 24 h = %q, want 1 (in red)", got)
	}
	if strings.Contains(r.body, `data-job="x"`) {
		t.Error("a job of a workspace the user is not a member of is listed")
	}
	if opts := pgTexts(r.doc.Find("#all-jobs-collection option")); strings.Join(opts, ",") != "Any collection,default/ops/nightly,default/rg/jc" {
		t.Errorf("collections offered %v", opts)
	}
}

func TestAllJobsSearchAndFiltersInTheURL(t *testing.T) {
	f := allJobsFixture(t)
	cases := []struct {
		query string
		want  string
	}{
		{"q=pay.example", "invoices"},
		{"q=%2Fweekly", "reports"},
		{"q=ops%2Fnight", "backup"},
		{"q=REPORTS", "reports"},
		{"result=Failed", "invoices"},
		{"result=none", "backup"},
		{"failed=24h", "invoices"},
		{"collection=default%2Fops%2Fnightly", "backup"},
		{"state=enabled&sort=name", "backup,invoices,reports"},
		{"tz=Europe%2FBerlin&sort=last", "invoices,reports,backup"},
		{"state=disabled", ""},
	}
	for _, c := range cases {
		r := f.get("/jobs?" + c.query)
		wantStatus(t, r, http.StatusOK)
		if got := strings.Join(pgTexts(r.doc.Find("#all-jobs-results tbody tr td:first-child")), ","); got != c.want {
			t.Errorf("%s: jobs %q, want %q", c.query, got, c.want)
		}
	}
	r := f.get("/jobs?q=pay&state=enabled&sort=name&failed=24h")
	if v, _ := r.doc.Find("#all-jobs-q").Attr("value"); v != "pay" {
		t.Errorf("search box = %q", v)
	}
	if r.doc.Find(`#all-jobs-state option[value="enabled"][selected]`).Length() != 1 ||
		r.doc.Find(`#all-jobs-sort option[value="name"][selected]`).Length() != 1 ||
		r.doc.Find(`#all-jobs-failed[checked]`).Length() != 1 {
		t.Error("the form does not show the URL's filter")
	}
	if href, _ := r.doc.Find("#all-jobs-clear").Attr("href"); href != "/jobs?sort=name" {
		t.Errorf("clear link %q", href)
	}
}

func TestAllJobsFragmentAndPaging(t *testing.T) {
	f := allJobsFixture(t)
	ref := models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "bulk"}
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "P20Premium", State: models.CollectionEnabled}); err != nil {
		t.Fatal(err)
	}
	bulk, err := f.store.CollectionByRef(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 55 {
		f.putJob(bulk, fmt.Sprintf("bulk-%02d", i), pgJobJSON)
	}
	r := f.hxGet("/jobs?q=bulk&sort=name")
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "all-jobs-results")
	if !strings.Contains(r.Header.Get("Vary"), "HX-Request") {
		t.Errorf("Vary = %q, want HX-Request", r.Header.Get("Vary"))
	}
	names := pgTexts(r.doc.Find("tbody tr td:first-child"))
	if len(names) != 50 || names[0] != "bulk-00" || names[49] != "bulk-49" {
		t.Fatalf("first page %d jobs %v", len(names), names)
	}
	next, _ := r.doc.Find("#all-jobs-next").Attr("href")
	if !strings.HasPrefix(next, "/jobs?after=bulk-49%2C") || !strings.Contains(next, "q=bulk") || !strings.Contains(next, "sort=name") {
		t.Fatalf("next page %q", next)
	}
	if hx, _ := r.doc.Find("#all-jobs-next").Attr("hx-get"); hx != next {
		t.Errorf("next hx-get %q", hx)
	}
	r = f.get(next)
	wantStatus(t, r, http.StatusOK)
	names = pgTexts(r.doc.Find("#all-jobs-results tbody tr td:first-child"))
	if strings.Join(names, ",") != "bulk-50,bulk-51,bulk-52,bulk-53,bulk-54" {
		t.Errorf("second page %v", names)
	}
	if r.doc.Find("#all-jobs-next").Length() != 0 || r.doc.Find("#all-jobs-first").Length() != 1 {
		t.Error("the last page links to a next page or not to the first")
	}
	// A history restore wants the whole page.
	r = f.do(f.client, http.MethodGet, "/jobs?q=bulk", nil, http.Header{"HX-Request": {"true"}, "HX-History-Restore-Request": {"true"}})
	if r.doc.Find("form#all-jobs-filter").Length() != 1 {
		t.Error("a history restore got the fragment")
	}
}

func TestAllJobsEmptyStates(t *testing.T) {
	f := newPGFixture(t)
	r := f.get("/jobs")
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#all-jobs-empty").Text(); !strings.Contains(got, "no jobs yet") {
		t.Errorf("no jobs: %q", got)
	}
	f.putJob(f.coll, "one", pgJobJSON)
	r = f.hxGet("/jobs?q=nothing-like-it")
	pgWantFragment(t, r, "all-jobs-results")
	if got := r.doc.Find("#all-jobs-empty").Text(); !strings.Contains(got, "No job matches") {
		t.Errorf("no match: %q", got)
	}
}

func TestAllJobsBadParameters(t *testing.T) {
	f := allJobsFixture(t)
	for _, q := range []string{"sort=soon", "state=paused", "result=ok", "after=garbage", "sort=name&after=Caps%2C1",
		"after=2026-11-21T12%3A00%3A00Z%2Cx", "failed=1", "tz=Mars%2FBase", "collection=other%2Frg%2Ftheirs", "collection=nope",
		"q=" + strings.Repeat("a", 201)} {
		r := f.get("/jobs?" + q)
		pgWantErrorPage(t, r, http.StatusBadRequest)
		param := strings.SplitN(q, "=", 2)[0]
		if strings.Contains(q, "after=") {
			param = "after"
		}
		if !strings.Contains(r.doc.Find("#error").Text(), param) {
			t.Errorf("%s: the error does not name %q: %s", q, param, strings.Join(strings.Fields(r.doc.Find("#error").Text()), " "))
		}
	}
	other := newClient()
	r := f.do(other, http.MethodGet, "/jobs", nil, nil)
	wantRedirect(t, r, "/signin?next=%2Fjobs")
}
