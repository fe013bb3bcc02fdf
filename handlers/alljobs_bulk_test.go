package handlers_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
)

// Tests of the bulk actions of the "All jobs" page (alljobs_bulk.go) and
// of POST /api/v1/jobs/bulk (jobs_bulk_api.go).

// bulkFixture is allJobsFixture with the job "done" (completed) in
// default/rg/jc; ids maps the jobs' names to their ids.
type bulkFixture struct {
	*pgFixture
	ids map[string]string
}

func newBulkFixture(t *testing.T) *bulkFixture {
	f := &bulkFixture{pgFixture: allJobsFixture(t), ids: map[string]string{}}
	done := f.putJob(f.coll, "done", pgJobJSON)
	f.sql(`UPDATE jobs SET state = 'completed', ended_at = now(), next_run_at = NULL, needs_schedule = false WHERE id = $1`, done.ID)
	rows, err := f.store.SearchJobs(context.Background(), models.JobSearchParams{AllCollections: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows.Rows {
		f.ids[r.Name] = strconv.FormatInt(r.ID, 10)
	}
	return f
}

// query returns the one text value query selects, or "gone" for none.
func (f *bulkFixture) query(query string, args ...any) string {
	f.t.Helper()
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	var out string
	switch err := db.QueryRow(query, args...).Scan(&out); {
	case errors.Is(err, sql.ErrNoRows):
		return "gone"
	case err != nil:
		f.t.Fatal(err)
	}
	return out
}

// state is the state, note and who changed it of the job name.
func (f *bulkFixture) state(name string) string {
	f.t.Helper()
	return f.query(`SELECT state || ' ' || state_note || ' ' || state_changed_by FROM jobs WHERE name = $1`, name)
}

// bulk posts the bulk form with the checked jobs names.
func (f *bulkFixture) bulk(action, note string, names ...string) *response {
	form := url.Values{"action": {action}, "note": {note}}
	for _, n := range names {
		form.Add("id", f.ids[n])
	}
	return f.formPost("/jobs/bulk", form)
}

func TestBulkFormOnTheResults(t *testing.T) {
	f := newBulkFixture(t)
	r := f.get("/jobs?q=.example.")
	wantStatus(t, r, http.StatusOK)
	form := r.doc.Find("#all-jobs-results form#all-jobs-bulk")
	if form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/jobs/bulk" {
		t.Fatalf("bulk form %q %q", form.AttrOr("method", ""), form.AttrOr("action", ""))
	}
	if n := form.Find(`tbody input[type="checkbox"][name="id"]`).Length(); n != 2 {
		t.Errorf("%d row checkboxes, want 2 (invoices and reports match)", n)
	}
	form.Find(`tbody input[name="id"]`).Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("aria-label", "") == "" {
			t.Error("a row checkbox has no label")
		}
	})
	if got := strings.Join(strings.Fields(form.Find(`label[for="all-jobs-select-all"]`).Text()), " "); got != "All 2 jobs that match the filter" {
		t.Errorf("all-matching label %q", got)
	}
	if v := form.Find(`input[type="hidden"][name="q"]`).AttrOr("value", ""); v != ".example." {
		t.Errorf("the filter is not carried: q=%q", v)
	}
	for _, id := range []string{"bulk-enable", "bulk-disable", "bulk-run", "bulk-export", "bulk-delete"} {
		if form.Find("button#"+id).Length() != 1 {
			t.Errorf("no button #%s", id)
		}
	}
	if form.Find(`input#bulk-note[maxlength="500"]`).Length() != 1 || form.Find(`label[for="bulk-note"]`).Length() != 1 {
		t.Error("the note field is missing its label or its limit")
	}
}

func TestBulkDisableWithANoteOnAMixOfStates(t *testing.T) {
	f := newBulkFixture(t)
	r := f.bulk("disable", "  waiting for the vendor's maintenance ", "invoices", "reports", "done")
	wantStatus(t, r, http.StatusSeeOther)
	if loc := r.Header.Get("Location"); loc != "/jobs" {
		t.Errorf("redirect to %q, want /jobs", loc)
	}
	for _, n := range []string{"invoices", "reports"} {
		if got := f.state(n); got != "disabled waiting for the vendor's maintenance admin" {
			t.Errorf("%s = %q", n, got)
		}
	}
	if got := f.state("done"); got != "completed  " {
		t.Errorf("done = %q, want untouched", got)
	}
	r = f.get("/jobs")
	if got := strings.TrimSpace(r.doc.Find("#flash").Text()); got != "2 disabled, 1 already completed." {
		t.Errorf("flash %q", got)
	}
	note := strings.Join(strings.Fields(r.doc.Find(`tr[data-job="invoices"] .state-note`).Text()), " ")
	if !strings.HasPrefix(note, "Paused by admin") || !strings.HasSuffix(note, ": waiting for the vendor's maintenance") {
		t.Errorf("the row's note reads %q", note)
	}
	// The job page says it too, and the search finds the note.
	jr := f.get("/c/default/rg/jc/jobs/invoices")
	if got := strings.Join(strings.Fields(jr.doc.Find("#job-state-note").Text()), " "); !strings.Contains(got, "Paused by admin") ||
		!strings.Contains(got, ": waiting for the vendor's maintenance") {
		t.Errorf("job page note %q", got)
	}
	if got := pgTexts(f.get("/jobs?q=vendor&sort=name").doc.Find("#all-jobs-results tbody tr td:first-child")); strings.Join(got, ",") != "invoices,reports" {
		t.Errorf("search for the note: %v", got)
	}

	// Run now on all that match ".example." (both disabled now): none
	// runs.
	r = f.formPost("/jobs/bulk", url.Values{"action": {"run"}, "all": {"matching"}, "q": {".example."}})
	wantStatus(t, r, http.StatusSeeOther)
	if got := strings.TrimSpace(f.get("/jobs").doc.Find("#flash").Text()); got != "2 not run (not enabled)." {
		t.Errorf("run flash %q", got)
	}
	// Enable them all, then run all matching: two start.
	f.formPost("/jobs/bulk", url.Values{"action": {"enable"}, "all": {"matching"}, "q": {".example."}})
	if got := f.state("invoices"); got != "enabled  admin" {
		t.Errorf("enabled invoices = %q, want no note", got)
	}
	if got := strings.TrimSpace(f.get("/jobs").doc.Find("#flash").Text()); got != "2 enabled." {
		t.Errorf("enable flash %q", got)
	}
	f.formPost("/jobs/bulk", url.Values{"action": {"run"}, "all": {"matching"}, "q": {".example."}})
	if got := strings.TrimSpace(f.get("/jobs").doc.Find("#flash").Text()); got != "2 started." {
		t.Errorf("run flash %q", got)
	}
}

func TestBulkRefusalsChangeNothing(t *testing.T) {
	f := newBulkFixture(t)
	hidden := f.query(`SELECT id::text FROM jobs WHERE name = 'x'`)
	before := f.fingerprint()
	cases := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"empty selection", url.Values{"action": {"disable"}}, http.StatusBadRequest, "No job is selected"},
		{"a job of another workspace", url.Values{"action": {"disable"}, "id": {f.ids["invoices"], hidden}}, http.StatusBadRequest,
			"1 job of the selection is not among the jobs you may see"},
		{"an unknown id", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"999999"}}, http.StatusBadRequest,
			"not among the jobs you may see"},
		{"not an id", url.Values{"action": {"enable"}, "id": {"abc"}}, http.StatusBadRequest, `"abc" is not a job id`},
		{"unknown action", url.Values{"action": {"pause"}, "id": {f.ids["invoices"]}}, http.StatusBadRequest, `"pause" is not one of`},
		{"a note too long", url.Values{"action": {"disable"}, "id": {f.ids["invoices"]}, "note": {strings.Repeat("x", 501)}},
			http.StatusBadRequest, "501 characters long"},
		{"a note on enable", url.Values{"action": {"enable"}, "id": {f.ids["invoices"]}, "note": {"why"}}, http.StatusBadRequest,
			"Only disable takes a note"},
		{"a bad filter", url.Values{"action": {"run"}, "all": {"matching"}, "state": {"sleeping"}}, http.StatusBadRequest, "not a job state"},
	}
	for _, tc := range cases {
		r := f.formPost("/jobs/bulk", tc.form)
		if r.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, r.StatusCode, tc.status)
		}
		if got := r.doc.Find("#bulk-error[role=alert]").Text(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: message %q, want %q", tc.name, got, tc.want)
		}
		if r.doc.Find(`a[href^="/jobs"]`).Length() == 0 {
			t.Errorf("%s: no way back to All jobs", tc.name)
		}
	}
	if f.fingerprint() != before {
		t.Error("a refused bulk action changed the database")
	}

	// A reader of "default" may see the jobs but not disable them.
	ctx := context.Background()
	bob, err := f.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	f.sql(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('default', $1, 'reader')
		ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = 'reader'`, bob.ID)
	f.client = newClient()
	f.signIn("bob", "password123")
	r := f.bulk("disable", "", "invoices", "reports")
	wantStatus(t, r, http.StatusForbidden)
	if got := r.doc.Find("#bulk-error").Text(); !strings.Contains(got, "needs the operator role in workspace default") {
		t.Errorf("reader's message %q", got)
	}
	if f.fingerprint() != before {
		t.Error("a reader's bulk action changed the database")
	}
}

func TestBulkDeleteAsksWithTheCountAndNames(t *testing.T) {
	f := newBulkFixture(t)
	r := f.bulk("delete", "", "invoices", "backup")
	wantStatus(t, r, http.StatusOK)
	if got := strings.TrimSpace(r.doc.Find("h1#bulk-confirm-title").Text()); got != "Delete 2 jobs?" {
		t.Errorf("title %q", got)
	}
	if got := pgTexts(r.doc.Find("#bulk-confirm-names li")); strings.Join(got, ",") != "default/rg/jc/invoices,default/ops/nightly/backup" {
		t.Errorf("names %v", got)
	}
	if f.state("invoices") == "gone" {
		t.Fatal("the question deleted the jobs")
	}
	// The confirmation form carries the selection again.
	form := url.Values{}
	r.doc.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("name", "") != "csrf_token" {
			form.Add(s.AttrOr("name", ""), s.AttrOr("value", ""))
		}
	})
	form.Set("confirm", r.doc.Find("#bulk-confirm-delete").AttrOr("value", ""))
	wantStatus(t, f.formPost("/jobs/bulk", form), http.StatusSeeOther)
	if f.state("invoices") != "gone" || f.state("backup") != "gone" || f.state("reports") == "gone" {
		t.Errorf("after delete: invoices %q, backup %q, reports %q", f.state("invoices"), f.state("backup"), f.state("reports"))
	}
	if got := strings.TrimSpace(f.get("/jobs").doc.Find("#flash").Text()); got != "2 deleted." {
		t.Errorf("flash %q", got)
	}
}

func TestBulkExportDownloadsTheImportFormat(t *testing.T) {
	f := newBulkFixture(t)
	r := f.bulk("export", "", "reports", "backup")
	wantStatus(t, r, http.StatusOK)
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("Content-Disposition %q", cd)
	}
	var bundle struct {
		JobCollections []struct {
			Name string `json:"name"`
			Jobs []struct {
				Name string `json:"name"`
			} `json:"jobs"`
		} `json:"jobCollections"`
		SecretsOmitted bool `json:"secretsOmitted"`
	}
	if err := json.Unmarshal([]byte(r.body), &bundle); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range bundle.JobCollections {
		for _, j := range c.Jobs {
			got = append(got, j.Name)
		}
	}
	if strings.Join(got, ",") != "jc/reports,nightly/backup" || !bundle.SecretsOmitted {
		t.Errorf("export holds %v", got)
	}
}

func TestAPIBulkJobs(t *testing.T) {
	f := newBulkFixture(t)
	admin, err := f.store.UserByName(context.Background(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := f.store.CreateToken(context.Background(), admin.ID, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	f.token = tok
	armID := func(coll, name string) string {
		return "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/" + coll + "/jobs/" + name
	}
	r := f.api(http.MethodPost, "/api/v1/jobs/bulk", `{"action":"disable","stateNote":"vendor","jobs":["`+armID("jc", "invoices")+`","`+armID("jc", "done")+`"]}`)
	wantStatus(t, r, http.StatusOK)
	var out struct {
		Summary string         `json:"summary"`
		Counts  map[string]int `json:"counts"`
		Jobs    []struct{ ID, Outcome string }
	}
	if err := json.Unmarshal([]byte(r.body), &out); err != nil {
		t.Fatal(err)
	}
	if out.Summary != "1 disabled, 1 already completed." || out.Counts["disabled"] != 1 || len(out.Jobs) != 2 ||
		out.Jobs[0].ID != armID("jc", "invoices") || out.Jobs[0].Outcome != "disabled" {
		t.Errorf("answer %s", r.body)
	}
	if got := f.state("invoices"); got != "disabled vendor admin" {
		t.Errorf("invoices = %q", got)
	}
	// Every job of the filter.
	r = f.api(http.MethodPost, "/api/v1/jobs/bulk", `{"action":"enable","filter":{"q":".example."}}`)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"summary":"1 enabled, 1 already enabled."`) {
		t.Errorf("filter answer %s", r.body)
	}
	before := f.fingerprint()
	for _, tc := range []struct{ body, target string }{
		{`{"action":"disable","jobs":[]}`, "jobs"},
		{`{"action":"disable"}`, "jobs"},
		{`{"action":"disable","jobs":["` + armID("jc", "invoices") + `","/subscriptions/other/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/theirs/jobs/x"]}`, "jobs[1]"},
		{`{"action":"disable","jobs":["` + armID("jc", "nope") + `"]}`, "jobs[0]"},
		{`{"action":"disable","jobs":["not an id"]}`, "jobs[0]"},
		{`{"action":"disable","stateNote":"a\u0007b","jobs":["` + armID("jc", "invoices") + `"]}`, "stateNote"},
		{`{"action":"disable","filter":{"state":"asleep"}}`, "filter.state"},
		{`{"action":"disable","filter":{},"jobs":[]}`, "filter"},
		{`{"action":"disable","jobs":[],"extra":1}`, "body"},
	} {
		r := f.api(http.MethodPost, "/api/v1/jobs/bulk", tc.body)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) == 0 || e.Error.Details[0].Target != tc.target {
			t.Errorf("%s: answered %s, want a detail naming %s", tc.body, r.body, tc.target)
		}
	}
	if f.fingerprint() != before {
		t.Error("a refused bulk request changed the database")
	}
}
