package handlers_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
	"sked/scheduler/catalog"
)

// The fixture of the page tests: a signed-in admin with a collection, and
// ways to write what only the engine writes and to post forms as htmx does
// or not. The app's clock stands at 2026-11-21 12:00 UTC.

// pgJobJSON is an hourly job at minute 30 in Europe/Berlin.
const pgJobJSON = `{"action":{"type":"https","request":{"uri":"https://example.com/hook","method":"POST","body":"x"}},
	"recurrence":{"frequency":"hour","interval":1,"schedule":{"minutes":[30]},"timeZone":"Europe/Berlin"},
	"startTime":"2026-11-01T00:00:00"}`

// pgFixture is a signed-in admin with the collection /c/default/rg/jc.
type pgFixture struct {
	*app
	base string
	coll *models.CollectionRow
	cat  *catalog.Catalog
}

func newPGFixture(t *testing.T) *pgFixture {
	t.Helper()
	a, base := signedInWithCollection(t)
	coll, err := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
	if err != nil {
		t.Fatal(err)
	}
	return &pgFixture{app: a, base: base, coll: coll, cat: catalog.New(a.store, a.clock.Now)}
}

// putJob creates a job through the catalog (as the API does).
func (f *pgFixture) putJob(coll *models.CollectionRow, name, body string) *models.Job {
	f.t.Helper()
	j, _, err := f.cat.PutJob(context.Background(), catalog.System("test"), coll, name, []byte(body))
	if err != nil {
		f.t.Fatal(err)
	}
	// The database stamped the schedule base with its own clock; the
	// app's clock is older: move it to a day before the app's now.
	f.sql(`UPDATE jobs SET schedule_base = $1 WHERE id = $2`, f.clock.Now().Add(-24*time.Hour), j.ID)
	return j
}

// sql runs statements on the test database (what only the engine writes).
func (f *pgFixture) sql(query string, args ...any) {
	f.t.Helper()
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		f.t.Fatalf("%s: %v", query, err)
	}
}

// schedule sets a job's next run as an engine would.
func (f *pgFixture) schedule(id int64, next time.Time) {
	f.sql(`UPDATE jobs SET next_run_at = $1, needs_schedule = false WHERE id = $2`, next, id)
}

// addHistory writes one history entry started at start, lateMs late.
func (f *pgFixture) addHistory(jobID int64, start time.Time, status models.HistoryStatus, action models.ActionName, lateMs int64, msg string) *models.HistoryEntry {
	f.t.Helper()
	end := start.Add(250 * time.Millisecond)
	e := &models.HistoryEntry{JobID: jobID, StartTime: start, EndTime: &end, ExpectedExecutionTime: start.Add(-time.Duration(lateMs) * time.Millisecond),
		ActionName: action, Status: status, Message: msg, RetryCount: 1, RepeatCount: 1, LatenessMs: &lateMs}
	if err := f.store.AddHistory(context.Background(), e); err != nil {
		f.t.Fatal(err)
	}
	return e
}

// otherWorkspace creates the workspace "other" (the user is no member)
// with the collection /c/other/rg/theirs holding the job "x".
func (f *pgFixture) otherWorkspace() *models.CollectionRow {
	f.t.Helper()
	f.sql(`INSERT INTO workspaces (id, display_name) VALUES ('other', 'Other')`)
	ref := models.CollectionRef{WorkspaceID: "other", ResourceGroup: "rg", Name: "theirs"}
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "Standard", State: models.CollectionEnabled}); err != nil {
		f.t.Fatal(err)
	}
	coll, err := f.store.CollectionByRef(context.Background(), ref)
	if err != nil {
		f.t.Fatal(err)
	}
	f.putJob(coll, "x", pgJobJSON)
	return coll
}

// hxGet fetches path as htmx does.
func (f *pgFixture) hxGet(path string) *response {
	return f.do(f.client, http.MethodGet, path, nil, http.Header{"HX-Request": {"true"}})
}

// hxPost posts form as htmx does: the CSRF token in the header.
func (f *pgFixture) hxPost(path string, form url.Values) *response {
	tok := f.csrf("/")
	if form == nil {
		form = url.Values{}
	}
	return f.do(f.client, http.MethodPost, path, form, http.Header{"HX-Request": {"true"}, "X-CSRF-Token": {tok}})
}

// formPost posts form with the CSRF token in its field (no htmx).
func (f *pgFixture) formPost(path string, form url.Values) *response {
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf_token", f.csrf("/"))
	return f.post(path, form)
}

// pgWantFragment checks that r is a fragment (no page around it) whose root
// is #id.
func pgWantFragment(t *testing.T, r *response, id string) {
	t.Helper()
	if strings.Contains(r.body, "<html") || strings.Contains(r.body, "<nav aria-label=\"Main\"") {
		t.Fatalf("%s: htmx got a whole page, want the fragment #%s", r.Request.URL, id)
	}
	if r.doc.Find("body > #"+id).Length() != 1 && r.doc.Find("#"+id).Length() != 1 {
		t.Fatalf("%s: no #%s in the fragment:\n%s", r.Request.URL, id, r.body)
	}
	if !strings.HasPrefix(strings.TrimSpace(r.body), "<") || !strings.Contains(strings.SplitN(r.body, ">", 2)[0], `id="`+id+`"`) {
		t.Fatalf("%s: the fragment does not start with #%s:\n%.300s", r.Request.URL, id, r.body)
	}
}

// pgWantErrorPage checks a full error page with status.
func pgWantErrorPage(t *testing.T, r *response, status int) {
	t.Helper()
	wantStatus(t, r, status)
	if r.doc.Find("#error").Length() != 1 || r.doc.Find(`nav[aria-label="Main"]`).Length() != 1 {
		t.Fatalf("%s: want a full error page:\n%s", r.Request.URL, r.body)
	}
}

func pgTexts(s *goquery.Selection) []string {
	var out []string
	s.Each(func(_ int, e *goquery.Selection) { out = append(out, strings.Join(strings.Fields(e.Text()), " ")) })
	return out
}

// auditCount is how many audit entries of action the database holds.
func (f *pgFixture) auditCount(action string) int {
	f.t.Helper()
	var n int
	if err := openDB(f.t, f.app).QueryRow(`SELECT count(*) FROM audit_entries WHERE action = $1`, action).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// noteText is the #id state note's text on one line.
func noteText(r *response, id string) string {
	return strings.Join(strings.Fields(r.doc.Find("#"+id).Text()), " ")
}
