package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
)

const seedJobs = `[
 {"name":"weekday-report","startTime":"2026-01-01T08:00:00Z","action":{"type":"http","request":{"uri":"https://example.com/report","method":"GET"}},
  "recurrence":{"frequency":"week","schedule":{"weekDays":["monday","friday"],"hours":[8],"minutes":[0]}}},
 {"name":"broken","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day","interval":900}}
]`

func TestImportPageDryRunThenApply(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	r := a.get("/import")
	wantStatus(t, r, http.StatusOK)
	for _, id := range []string{"import_file", "import_text", "import_rg", "import_collection", "import_conflict"} {
		if r.doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("no label for %s", id)
		}
	}
	csrf := a.csrf("/import")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := url.Values{"csrf_token": {csrf}, "text": {seedJobs}, "resource_group": {"ops"}, "collection": {"reports"},
		"on_conflict": {"replace"}, "step": {"check"}}
	before := a.fingerprint()
	r = a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if a.fingerprint() != before {
		t.Fatal("the dry run wrote to the database")
	}
	row := r.doc.Find(`tr[data-job="weekday-report"]`)
	if !strings.Contains(row.Text(), "new") || row.Find("time[datetime]").Length() != 3 || !strings.Contains(strings.ToLower(row.Text()), "monday") {
		t.Errorf("dry-run row: %s", row.Text())
	}
	if bad := r.doc.Find(`tr[data-job="broken"]`).Text(); !strings.Contains(bad, "invalid") || !strings.Contains(bad, "recurrence.interval") {
		t.Errorf("invalid row: %s", bad)
	}
	if r.doc.Find("#import-all").Length() != 1 || r.doc.Find("#import-valid").Length() != 1 {
		t.Error("no apply buttons after the dry run")
	}
	// All or nothing: refused, nothing written.
	form.Set("step", "all")
	r = a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if a.fingerprint() != before || !strings.Contains(r.doc.Find("#import-message").Text(), "Nothing was written") {
		t.Fatalf("import all with an invalid job: %s", r.doc.Find("#import-report").Text())
	}
	// The valid ones only.
	form.Set("step", "valid")
	r = a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#import-summary").Text(), "1 written") {
		t.Errorf("summary: %s", r.doc.Find("#import-summary").Text())
	}
	coll, err := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "ops", Name: "reports"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.JobByName(context.Background(), coll.ID, "weekday-report"); err != nil {
		t.Errorf("imported job: %v", err)
	}
	// Export from the page: a download holding the job, without secrets.
	r = a.get("/export")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"weekday-report"`) && !strings.Contains(r.body, `reports/weekday-report`) || !strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("export: %s %s", r.Header.Get("Content-Disposition"), r.body)
	}
	// Not JSON: a clear message.
	form.Set("text", "this is not json")
	form.Set("step", "check")
	r = a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.doc.Find("#import-problems").Text(), "JSON") {
		t.Errorf("not JSON: %s", r.doc.Find("#import-problems").Text())
	}
}

func TestCollectionPageExportsItsJobs(t *testing.T) {
	a, base := signedInWithCollection(t)
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
	if _, _, err := a.store.SaveJob(context.Background(), models.JobWrite{CollectionID: coll.ID, Name: "one",
		Definition: []byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"enabled"}`)}); err != nil {
		t.Fatal(err)
	}
	r := a.get(base)
	wantStatus(t, r, http.StatusOK)
	href, ok := r.doc.Find("#collection-export").Attr("href")
	if !ok {
		t.Fatal("no export link on the collection page")
	}
	r = a.get(href)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"value"`) || !strings.Contains(r.body, "jc/one") {
		t.Errorf("collection export: %s", r.body)
	}
}

// TestImportPageShowsProgressForLargeFiles imports 600 jobs through the
// page: it answers with a progress fragment that polls, and the poll ends
// with the report.
func TestImportPageShowsProgressForLargeFiles(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	var jobs []string
	for i := 0; i < 600; i++ {
		jobs = append(jobs, fmt.Sprintf(`{"name":"j%03d","action":{"type":"http","request":{"uri":"https://example.com/%d","method":"GET"}},"recurrence":{"frequency":"day"}}`, i, i))
	}
	csrf := a.csrf("/import")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := url.Values{"csrf_token": {csrf}, "text": {"[" + strings.Join(jobs, ",") + "]"}, "resource_group": {"rg"},
		"collection": {"big"}, "on_conflict": {"replace"}, "step": {"valid"}}
	// The Standard quota is 50 jobs: make room.
	if _, err := a.store.PutCollection(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "big"},
		&models.JobCollection{SKU: "P20Premium", State: models.CollectionEnabled}); err != nil {
		t.Fatal(err)
	}
	r := a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	poll, ok := r.doc.Find("#import[hx-get]").Attr("hx-get")
	if !ok || r.doc.Find("progress#import-progress-bar").AttrOr("max", "") != "600" {
		t.Fatalf("no progress fragment: %s", r.body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = a.do(a.client, http.MethodGet, poll, nil, http.Header{"HX-Request": {"true"}})
		if r.doc.Find("#import-report").Length() > 0 {
			break
		}
		wantStatus(t, r, http.StatusOK)
		if time.Now().After(deadline) {
			t.Fatalf("the import did not finish: %s", r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#import-summary").Text(), "600 written") {
		t.Errorf("summary %q", r.doc.Find("#import-summary").Text())
	}
	// Another user cannot read the run.
	other := newClient()
	wantStatus(t, a.do(other, http.MethodGet, poll, nil, nil), http.StatusSeeOther)
}

// TestImportPageSkipsByDefault checks that a name clash skips the job
// unless the user chooses to replace it.
func TestImportPageSkipsByDefault(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	r := a.get("/import")
	wantStatus(t, r, http.StatusOK)
	if v, _ := r.doc.Find(`#import_conflict option[selected]`).Attr("value"); v != "skip" {
		t.Errorf("default for jobs that exist: %q, want skip", v)
	}
}
