package handlers_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
	"sked/scheduler/catalog"
)

// Tests of the dashboard, the collection page and the job page with its
// history (pages.go, pages_build.go and their presenters in web). The app's clock
// stands at 2026-11-21 12:00 UTC.

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
	j, _, err := f.cat.PutJob(context.Background(), catalog.Actor{}, coll, name, []byte(body))
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
func (f *pgFixture) addHistory(jobID int64, start time.Time, status, action string, lateMs int64, msg string) *models.HistoryEntry {
	f.t.Helper()
	end := start.Add(250 * time.Millisecond)
	e := &models.HistoryEntry{JobID: jobID, StartTime: start, EndTime: &end, ExpectedExecutionTime: start.Add(-time.Duration(lateMs) * time.Millisecond),
		ActionName: models.ActionName(action), Status: models.HistoryStatus(status), Message: msg, RetryCount: 1, RepeatCount: 1, LatenessMs: &lateMs}
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
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "Standard", State: "Enabled"}); err != nil {
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

func TestDashboardShowsUpcomingFailuresAndTheLast24Hours(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	a := f.putJob(f.coll, "alpha", pgJobJSON)
	b := f.putJob(f.coll, "beta", pgJobJSON)
	f.schedule(a.ID, now.Add(90*time.Minute))
	f.schedule(b.ID, now.Add(30*time.Minute))
	f.addHistory(a.ID, now.Add(-3*time.Hour+time.Minute), "Completed", "MainAction", 40, "200 OK")
	f.addHistory(a.ID, now.Add(-3*time.Hour+2*time.Minute), "Completed", "MainAction", 40, "200 OK")
	f.addHistory(b.ID, now.Add(-1*time.Hour+5*time.Minute), "Failed", "MainAction", 120, "500 Internal Server Error\nboom")
	f.addHistory(b.ID, now.Add(-30*time.Hour), "Completed", "MainAction", 0, "older than the picture")
	other := f.otherWorkspace()
	theirs, _ := f.store.JobByName(context.Background(), other.ID, "x")
	f.addHistory(theirs.ID, now.Add(-10*time.Minute), "Failed", "MainAction", 0, "not yours")
	f.schedule(theirs.ID, now.Add(time.Minute))

	r := f.get("/")
	wantStatus(t, r, http.StatusOK)
	up := r.doc.Find("#upcoming li")
	if up.Length() != 2 {
		t.Fatalf("upcoming: %v", pgTexts(up))
	}
	if first := up.First(); !strings.Contains(first.Text(), "beta") ||
		first.Find("time").AttrOr("datetime", "") != "2026-11-21T13:30:00+01:00" || !strings.Contains(first.Text(), "in 30 min") ||
		!strings.Contains(first.Text(), "12:30:00 UTC") || !strings.Contains(first.Text(), "At 30 minutes past every hour (Europe/Berlin)") {
		t.Errorf("first upcoming occurrence: %q", strings.Join(strings.Fields(first.Text()), " "))
	}
	if href := up.First().Find("a").AttrOr("href", ""); href != "/c/default/rg/jc/jobs/beta" {
		t.Errorf("upcoming job link %q", href)
	}
	fails := r.doc.Find("#failures li")
	if fails.Length() != 1 || !strings.Contains(fails.Text(), "beta") || !strings.Contains(fails.Find("summary").Text(), "500 Internal Server Error") ||
		!strings.Contains(fails.Find("details pre").Text(), "boom") || strings.TrimSpace(fails.Find("span.rounded").First().Text()) != "Failed" {
		t.Errorf("failures: %v", pgTexts(fails))
	}
	if strings.Contains(r.body, "not yours") {
		t.Error("the dashboard shows a failure of a workspace the user is not a member of")
	}
	chart := r.doc.Find(`#activity svg[data-testid="activity-chart"]`)
	if chart.Length() != 1 {
		t.Fatal("no activity chart")
	}
	bars := chart.Find("g.activity-bar")
	if bars.Length() != 2 {
		t.Fatalf("bars with executions: %d, want 2 (%v)", bars.Length(), pgTexts(bars.Find("title")))
	}
	if got := bars.First().AttrOr("aria-label", ""); got != "09:00–10:00 UTC: 2 executions (2 Completed)" {
		t.Errorf("first bar label %q", got)
	}
	if got := bars.Eq(1).Find("title").Text(); got != "11:00–12:00 UTC: 1 execution (1 Failed)" {
		t.Errorf("second bar title %q", got)
	}
	if got := bars.First().AttrOr("tabindex", ""); got != "0" {
		t.Errorf("bars are not focusable: tabindex %q", got)
	}
	if got := strings.TrimSpace(bars.First().Find("text").Text()); got != "2" {
		t.Errorf("count label above the first bar %q", got)
	}
	if got := r.doc.Find("#activity-summary").Text(); got != "3 executions in the last 24 hours: 2 Completed, 1 Failed." {
		t.Errorf("summary %q", got)
	}
	if legend := pgTexts(r.doc.Find(`#activity ul[aria-label="Legend"] li`)); strings.Join(legend, "|") != "Completed|Failed|Postponed" {
		t.Errorf("legend %v", legend)
	}
	if got := chart.Find("text").FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Text() == "12:00" }).Length(); got != 0 {
		// The picture ends with the current hour: 12:00 is its last slot,
		// labelled only every third hour starting at 13:00 yesterday.
		t.Logf("12:00 labels: %d", got)
	}
	row := r.doc.Find("#collections tbody tr")
	if row.Length() != 1 || row.Find("a").AttrOr("href", "") != "/c/default/rg/jc" || !strings.Contains(row.Text(), "Enabled") {
		t.Errorf("collections: %v", pgTexts(row))
	}
}

func TestDashboardWithoutAnything(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	r := a.get("/")
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{"No execution in the last 24 hours.", "No occurrence is scheduled", "No failed execution.", "No job collections yet."} {
		if !strings.Contains(r.doc.Text(), want) {
			t.Errorf("empty dashboard without %q", want)
		}
	}
	if n := r.doc.Find("g.activity-bar").Length(); n != 0 {
		t.Errorf("empty chart has %d bars", n)
	}
}

func TestCollectionPageListsJobsWithStateScheduleAndQuota(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	a := f.putJob(f.coll, "alpha", pgJobJSON)
	f.putJob(f.coll, "beta", strings.Replace(pgJobJSON, `"startTime"`, `"state":"disabled","startTime"`, 1))
	f.schedule(a.ID, now.Add(30*time.Minute))
	f.sql(`UPDATE jobs SET execution_count = 1234, failure_count = 5, faulted_count = 1 WHERE id = $1`, a.ID)
	f.addHistory(a.ID, now.Add(-time.Hour), "Completed", "MainAction", 10, "200")
	f.addHistory(a.ID, now.Add(-30*time.Minute), "Failed", "MainAction", 10, "500")

	r := f.get(f.base)
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("h1").Text(); got != "jc" {
		t.Errorf("h1 %q", got)
	}
	rows := r.doc.Find("#collection-jobs tbody tr")
	if rows.Length() != 2 {
		t.Fatalf("job rows: %v", pgTexts(rows))
	}
	alpha := rows.Filter(`[data-job="alpha"]`)
	cells := alpha.Find("td")
	if got := strings.TrimSpace(cells.Eq(1).Text()); got != "Enabled" {
		t.Errorf("alpha state badge %q", got)
	}
	if got := strings.TrimSpace(cells.Eq(2).Text()); got != "At 30 minutes past every hour (Europe/Berlin)" {
		t.Errorf("alpha description %q", got)
	}
	if got := cells.Eq(3).Find("time").AttrOr("datetime", ""); got != "2026-11-21T13:30:00+01:00" {
		t.Errorf("alpha next run %q", got)
	}
	if got := strings.Fields(cells.Eq(4).Text()); len(got) == 0 || got[0] != "Failed" {
		t.Errorf("alpha last result %q", got)
	}
	if got := pgTexts(cells.Slice(5, 8)); strings.Join(got, "|") != "1,234|5|1" {
		t.Errorf("alpha counters %v", got)
	}
	beta := rows.Filter(`[data-job="beta"]`).Find("td")
	if strings.TrimSpace(beta.Eq(1).Text()) != "Disabled" || strings.TrimSpace(beta.Eq(3).Text()) != "Disabled" ||
		strings.TrimSpace(beta.Eq(4).Text()) != "Never ran" {
		t.Errorf("beta row %v", pgTexts(beta))
	}
	if got := r.doc.Find("#quota-text").Text(); got != "2 of 50 jobs" {
		t.Errorf("quota %q", got)
	}
	if m := r.doc.Find("meter#quota-jobs"); m.AttrOr("value", "") != "2" || m.AttrOr("max", "") != "50" {
		t.Errorf("quota meter value %q max %q", m.AttrOr("value", ""), m.AttrOr("max", ""))
	}
	if got := r.doc.Find("#quota-recurrence").Text(); got != "every 1 minute" {
		t.Errorf("max recurrence %q", got)
	}
	if r.doc.Find(`label[for="quota-jobs"]`).Length() != 1 {
		t.Error("the quota meter has no label")
	}
	if r.doc.Find("#collection-disable").Length() != 1 || r.doc.Find("#collection-enable").Length() != 0 {
		t.Error("an enabled collection offers no Disable button (or an Enable one)")
	}
	if href := r.doc.Find(`a[href="/c/default/rg/jc/jobs/new"]`).Length(); href != 1 {
		t.Error("no New job link")
	}

	// htmx gets only the job list.
	h := f.hxGet(f.base)
	wantStatus(t, h, http.StatusOK)
	pgWantFragment(t, h, "collection-jobs")

	// Names are case-insensitive; the page shows the stored spelling.
	wantStatus(t, f.get("/c/DEFAULT/RG/JC"), http.StatusOK)
}

func TestCollectionPageErrors(t *testing.T) {
	f := newPGFixture(t)
	f.otherWorkspace()
	pgWantErrorPage(t, f.get("/c/default/rg/missing"), http.StatusNotFound)
	pgWantErrorPage(t, f.get("/c/nope/rg/jc"), http.StatusNotFound)
	r := f.get("/c/other/rg/theirs")
	pgWantErrorPage(t, r, http.StatusNotFound)
	pgWantErrorPage(t, f.get("/c/other/rg/theirs/jobs/x"), http.StatusNotFound)
	pgWantErrorPage(t, f.get("/c/default/rg/jc/jobs/missing"), http.StatusNotFound)
	// Changes to another workspace's collection and job are refused too.
	before := f.fingerprint()
	wantStatus(t, f.formPost("/c/other/rg/theirs/disable", nil), http.StatusNotFound)
	wantStatus(t, f.formPost("/c/other/rg/theirs/jobs/x/disable", nil), http.StatusNotFound)
	wantStatus(t, f.formPost("/c/other/rg/theirs/jobs/x/delete", url.Values{"confirm": {"yes"}}), http.StatusNotFound)
	wantStatus(t, f.get("/c/other/rg/theirs/jobs/x/export.json"), http.StatusNotFound)
	if f.fingerprint() != before {
		t.Error("a request on another workspace changed the database")
	}
	// htmx gets the error fragment.
	h := f.hxGet("/c/default/rg/missing")
	wantStatus(t, h, http.StatusNotFound)
	pgWantFragment(t, h, "error")
	// Signed out: to the sign-in page.
	anon := f.do(newClient(), http.MethodGet, f.base, nil, nil)
	wantRedirect(t, anon, "/signin?next="+url.QueryEscape(f.base))
}

func TestCollectionJobListIsPagedByName(t *testing.T) {
	f := newPGFixture(t)
	ref := models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "big"}
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "P20Premium", State: "Enabled"}); err != nil {
		t.Fatal(err)
	}
	big, _ := f.store.CollectionByRef(context.Background(), ref)
	for i := range 53 {
		f.putJob(big, fmt.Sprintf("job-%03d", i), pgJobJSON)
	}
	r := f.get("/c/default/rg/big")
	wantStatus(t, r, http.StatusOK)
	first := r.doc.Find("#collection-jobs tbody tr")
	next := r.doc.Find("#jobs-next")
	if first.Length() != 50 || next.AttrOr("href", "") != "/c/default/rg/big?after=job-049" || next.AttrOr("hx-get", "") != next.AttrOr("href", "") {
		t.Fatalf("first page: %d rows, next %q", first.Length(), next.AttrOr("href", ""))
	}
	h := f.hxGet(next.AttrOr("href", ""))
	pgWantFragment(t, h, "collection-jobs")
	second := h.doc.Find("tbody tr")
	if got := pgTexts(second.Find("td:first-child")); strings.Join(got, ",") != "job-050,job-051,job-052" {
		t.Errorf("second page %v", got)
	}
	if h.doc.Find("#jobs-next").Length() != 0 || h.doc.Find(`a[href="/c/default/rg/big"]`).Length() != 1 {
		t.Error("the last page links to a next page, or not to the first")
	}
	if got := r.doc.Find("#quota-text").Text(); got != "53 of 1,000 jobs" {
		t.Errorf("quota %q", got)
	}
}

func TestCollectionEnableDisable(t *testing.T) {
	f := newPGFixture(t)
	state := func() string {
		c, err := f.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
		if err != nil {
			t.Fatal(err)
		}
		return string(c.State)
	}
	// Without the CSRF token: refused, nothing changed.
	before := f.fingerprint()
	wantStatus(t, f.post(f.base+"/disable", url.Values{}), http.StatusForbidden)
	wantStatus(t, f.do(f.client, http.MethodPost, f.base+"/disable", url.Values{}, http.Header{"HX-Request": {"true"}}), http.StatusForbidden)
	if f.fingerprint() != before || state() != "Enabled" {
		t.Fatal("a POST without the CSRF token changed the collection")
	}
	// htmx: the new status fragment.
	r := f.hxPost(f.base+"/disable", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "collection-status")
	if got := strings.TrimSpace(r.doc.Find("#collection-state").Text()); got != "Disabled" || r.doc.Find("#collection-enable").Length() != 1 {
		t.Errorf("after disable: state %q, enable button %d", got, r.doc.Find("#collection-enable").Length())
	}
	if !strings.Contains(r.doc.Find(`[role="status"]`).Text(), "disabled") || state() != "Disabled" {
		t.Errorf("disable: message %q, state %s", r.doc.Find(`[role="status"]`).Text(), state())
	}
	// The job page says why nothing runs.
	f.putJob(f.coll, "alpha", pgJobJSON)
	jp := f.get(f.base + "/jobs/alpha")
	if !strings.Contains(jp.doc.Find("#job-status").Text(), "is disabled: none of its jobs runs") || jp.doc.Find("#job-run").Length() != 0 {
		t.Error("the job page of a disabled collection offers Run now without a word")
	}
	// Without htmx: a redirect, and the message on the page after it.
	r = f.formPost(f.base+"/enable", nil)
	wantRedirect(t, r, f.base)
	if state() != "Enabled" {
		t.Fatal("enable did not enable")
	}
	page := f.get(f.base)
	if !strings.Contains(page.doc.Find("#flash").Text(), "enabled") {
		t.Errorf("no flash after enabling: %q", page.doc.Find("#flash").Text())
	}
	if f.get(f.base).doc.Find("#flash").Length() != 0 {
		t.Error("the flash shows twice")
	}
}

func TestJobPageShowsStatusAndNextOccurrences(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	f.schedule(j.ID, now.Add(30*time.Minute))
	f.sql(`UPDATE jobs SET execution_count = 7, failure_count = 2, faulted_count = 1 WHERE id = $1`, j.ID)
	f.addHistory(j.ID, now.Add(-90*time.Minute), "Completed", "MainAction", 30, "200 OK")
	f.addHistory(j.ID, now.Add(-30*time.Minute), "Failed", "MainAction", 20, "503 Service Unavailable")

	r := f.get(f.base + "/jobs/alpha")
	wantStatus(t, r, http.StatusOK)
	if got := strings.TrimSpace(r.doc.Find("#job-state").Text()); got != "Enabled" {
		t.Errorf("state badge %q", got)
	}
	if got := r.doc.Find("#job-description").Text(); !strings.Contains(got, "(Europe/Berlin)") {
		t.Errorf("description %q", got)
	}
	if got := pgTexts(r.doc.Find("#job-executions, #job-failures, #job-faulted")); strings.Join(got, "|") != "7|2|1" {
		t.Errorf("counters %v", got)
	}
	next := r.doc.Find("#job-next li")
	if next.Length() != 10 {
		t.Fatalf("next occurrences: %d, want 10", next.Length())
	}
	for i := range 10 {
		want := time.Date(2026, 11, 21, 13+i, 30, 0, 0, time.FixedZone("CET", 3600)).Format(time.RFC3339)
		li := next.Eq(i)
		if got := li.Find("time").AttrOr("datetime", ""); got != want {
			t.Errorf("occurrence %d: %s, want %s", i+1, got, want)
		}
		if utc := time.Date(2026, 11, 21, 12+i, 30, 0, 0, time.UTC).Format("15:04:05") + " UTC"; !strings.Contains(li.Text(), utc) {
			t.Errorf("occurrence %d without UTC %s alongside: %q", i+1, utc, li.Text())
		}
	}
	if got := strings.Fields(r.doc.Find("#job-status dd").Last().Text()); len(got) == 0 || got[0] != "Failed" {
		t.Errorf("last run %v", got)
	}
	if r.doc.Find("#job-run").Length() != 1 || r.doc.Find("#job-disable").Length() != 1 || r.doc.Find("#job-enable").Length() != 0 {
		t.Error("buttons of an enabled job: want Run now and Disable")
	}
	if href := r.doc.Find("#job-export").AttrOr("href", ""); href != "/c/default/rg/jc/jobs/alpha/export.json" {
		t.Errorf("export link %q", href)
	}
	del := r.doc.Find("#job-delete").Closest("form")
	if del.AttrOr("hx-confirm", "") == "" || del.AttrOr("action", "") != "/c/default/rg/jc/jobs/alpha/delete" || del.AttrOr("method", "") != "get" {
		t.Errorf("delete form: confirm %q action %q", del.AttrOr("hx-confirm", ""), del.AttrOr("action", ""))
	}
	// Every form control of the page has a visible label; every button
	// has text.
	r.doc.Find("main select, main input:not([type=hidden]), main textarea").Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if id == "" || r.doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("control %s (%s) without a label", id, s.AttrOr("name", ""))
		}
	})
	r.doc.Find("main button").Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) == "" {
			t.Errorf("button %s without text", s.AttrOr("id", ""))
		}
	})
	// Every id is unique (swap targets are stable and single).
	ids := map[string]int{}
	r.doc.Find("[id]").Each(func(_ int, s *goquery.Selection) { ids[s.AttrOr("id", "")]++ })
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q used %d times", id, n)
		}
	}
	// htmx gets the status fragment.
	h := f.hxGet(f.base + "/jobs/alpha")
	pgWantFragment(t, h, "job-status")
}

func TestJobRunEnableDisable(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	path := f.base + "/jobs/alpha"

	// Without the CSRF token nothing runs.
	before := f.fingerprint()
	wantStatus(t, f.post(path+"/run", url.Values{}), http.StatusForbidden)
	if f.fingerprint() != before {
		t.Fatal("run without the CSRF token changed the database")
	}
	r := f.hxPost(path+"/run", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "job-status")
	if !strings.Contains(r.doc.Find("#job-message").Text(), "runs now") || r.Header.Get("HX-Trigger-After-Settle") != "sked-history-changed" {
		t.Errorf("run now: message %q, HX-Trigger-After-Settle %q", r.doc.Find("#job-message").Text(), r.Header.Get("HX-Trigger-After-Settle"))
	}
	if msg := r.doc.Find("#job-message").Text(); strings.Contains(msg, "attempt") || !strings.Contains(msg, "for the first time") {
		t.Errorf("run now of a job that never ran: %q", msg)
	}
	// The message comes out of band; the status, the timeline and the
	// table refresh themselves on the event.
	if r.doc.Find(`#job-notice[hx-swap-oob="true"] #job-message`).Length() != 1 {
		t.Errorf("the message is not swapped out of band:\n%s", r.body)
	}
	page := f.get(path)
	for _, id := range []string{"job-status", "job-timeline", "history-table"} {
		el := page.doc.Find("#" + id)
		if el.AttrOr("hx-trigger", "") != "sked-history-changed from:body delay:1500ms" || el.AttrOr("hx-get", "") == "" {
			t.Errorf("#%s does not refresh after a run: hx-trigger %q", id, el.AttrOr("hx-trigger", ""))
		}
	}
	attempts, err := f.store.Attempts(context.Background(), j.ID)
	if err != nil || len(attempts) != 1 || attempts[0].Status != "pending" {
		t.Fatalf("attempts after run now: %+v, %v", attempts, err)
	}

	// Disable through htmx: the fragment offers Enable and no Run now.
	r = f.hxPost(path+"/disable", nil)
	wantStatus(t, r, http.StatusOK)
	if strings.TrimSpace(r.doc.Find("#job-state").Text()) != "Disabled" || r.doc.Find("#job-enable").Length() != 1 || r.doc.Find("#job-run").Length() != 0 {
		t.Errorf("after disable: %q", strings.Join(strings.Fields(r.doc.Text()), " "))
	}
	if !strings.Contains(r.doc.Find("#job-next-none").Text(), "disabled") {
		t.Errorf("no next occurrences note: %q", r.doc.Find("#job-next-none").Text())
	}
	// Run now on a disabled job is refused with the reason: 422 fragment
	// for htmx, 409 page otherwise; nothing is queued.
	r = f.hxPost(path+"/run", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.doc.Find("#job-error").Text(), "disabled") {
		t.Errorf("refused run: %q", r.doc.Find("#job-error").Text())
	}
	r = f.formPost(path+"/run", nil)
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.doc.Find("#job-error").Text(), "disabled") || r.doc.Find("#job-history").Length() != 1 {
		t.Errorf("refused run without htmx: %q", r.doc.Find("#job-error").Text())
	}
	if attempts, _ := f.store.Attempts(context.Background(), j.ID); len(attempts) != 0 {
		// Disabling dropped the pending run; the refused ones added none.
		t.Errorf("a refused run queued an attempt: %d", len(attempts))
	}
	// Enable without htmx: redirect and message; scheduled from now.
	r = f.formPost(path+"/enable", nil)
	wantRedirect(t, r, path)
	page = f.get(path)
	if !strings.Contains(page.doc.Find("#job-message").Text(), "enabled") || page.doc.Find("#job-next li").Length() != 10 {
		t.Errorf("after enable: message %q, %d next", page.doc.Find("#job-message").Text(), page.doc.Find("#job-next li").Length())
	}
}

func TestJobDeleteAsksFirst(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "alpha", pgJobJSON)
	f.putJob(f.coll, "beta", pgJobJSON)
	path := f.base + "/jobs/alpha"
	exists := func(name string) bool {
		_, err := f.store.JobByName(context.Background(), f.coll.ID, name)
		return err == nil
	}
	// Without htmx: a confirmation page.
	r := f.get(path + "/delete")
	wantStatus(t, r, http.StatusOK)
	form := r.doc.Find("#job-delete-confirm form")
	if form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != path+"/delete" || form.Find(`input[name="confirm"]`).AttrOr("value", "") != "yes" {
		t.Fatalf("confirmation form: %s", r.body)
	}
	// No CSRF token, no confirmation: nothing deleted.
	wantStatus(t, f.post(path+"/delete", url.Values{"confirm": {"yes"}}), http.StatusForbidden)
	wantStatus(t, f.formPost(path+"/delete", nil), http.StatusUnprocessableEntity)
	if !exists("alpha") {
		t.Fatal("deleted without CSRF token or confirmation")
	}
	r = f.formPost(path+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, r, f.base)
	if exists("alpha") {
		t.Fatal("not deleted")
	}
	if got := f.get(f.base).doc.Find("#flash").Text(); !strings.Contains(got, "alpha") {
		t.Errorf("flash after delete %q", got)
	}
	pgWantErrorPage(t, f.get(path), http.StatusNotFound)
	// htmx (hx-confirm asked in the browser): HX-Redirect.
	r = f.hxPost(f.base+"/jobs/beta/delete", url.Values{"confirm": {"yes"}})
	wantStatus(t, r, http.StatusOK)
	if r.Header.Get("HX-Redirect") != f.base || exists("beta") {
		t.Errorf("htmx delete: HX-Redirect %q, exists %v", r.Header.Get("HX-Redirect"), exists("beta"))
	}
}

func TestJobExportDownloadsARMJSON(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "alpha", `{"action":{"type":"https","request":{"uri":"https://example.com","method":"GET",
		"authentication":{"type":"basic","username":"u","password":"hunter2-secret"}}},"recurrence":{"frequency":"day"}}`)
	r := f.get(f.base + "/jobs/alpha/export.json")
	wantStatus(t, r, http.StatusOK)
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="jc-alpha.json"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	var doc struct {
		ID             string          `json:"id"`
		Name           string          `json:"name"`
		Properties     json.RawMessage `json:"properties"`
		SecretsOmitted bool            `json:"secretsOmitted"`
	}
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, r.body)
	}
	if doc.Name != "jc/alpha" || !strings.HasSuffix(doc.ID, "/jobCollections/jc/jobs/alpha") || !doc.SecretsOmitted || len(doc.Properties) == 0 {
		t.Errorf("export %s", r.body)
	}
	if strings.Contains(r.body, "hunter2") {
		t.Error("the export holds a secret")
	}
}

// pgHistory writes 45 entries (one a minute back from 11:00, statuses and
// actions in turn) and returns them by id.
func pgHistory(f *pgFixture, jobID int64) map[int64]*models.HistoryEntry {
	out := map[int64]*models.HistoryEntry{}
	statuses := []string{"Completed", "Failed", "Postponed"}
	for i := range 45 {
		action := "MainAction"
		if i%4 == 3 {
			action = "ErrorAction"
		}
		start := f.clock.Now().Add(-time.Hour - time.Duration(i/2)*time.Minute) // pairs share a start
		e := f.addHistory(jobID, start, statuses[i%3], action, int64(i), fmt.Sprintf("message %d\nsecond line", i))
		out[e.ID] = e
	}
	return out
}

func TestHistoryTableIsFilteredAndPagedByKeyset(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	all := pgHistory(f, j.ID)
	hist := f.base + "/jobs/alpha/history"

	for _, c := range []struct {
		query, status, action string
		want                  int
	}{
		{"", "", "", 45}, {"?status=Failed", "Failed", "", 15}, {"?action=ErrorAction", "", "ErrorAction", 11},
		{"?status=Completed&action=MainAction", "Completed", "MainAction", 11},
	} {
		seen := map[string]bool{}
		var order []int64
		next := hist + c.query
		for pages := 0; next != ""; pages++ {
			if pages > 5 {
				t.Fatalf("%s: paging does not end", c.query)
			}
			r := f.hxGet(next)
			wantStatus(t, r, http.StatusOK)
			pgWantFragment(t, r, "history-table")
			rows := r.doc.Find("tbody tr")
			if rows.Length() > 20 {
				t.Fatalf("%s: %d rows on a page", c.query, rows.Length())
			}
			rows.Each(func(_ int, tr *goquery.Selection) {
				id := strings.TrimPrefix(tr.AttrOr("id", ""), "history-")
				if seen[id] {
					t.Errorf("%s: entry %s on two pages", c.query, id)
				}
				seen[id] = true
				var n int64
				fmt.Sscan(id, &n)
				e := all[n]
				if e == nil {
					t.Fatalf("%s: unknown entry %s", c.query, id)
				}
				order = append(order, n)
				cells := tr.Find("td")
				if got := strings.TrimSpace(cells.Eq(1).Text()); got != string(e.Status) || (c.status != "" && got != c.status) {
					t.Errorf("%s: entry %d status %q, want %s", c.query, n, got, e.Status)
				}
				if got := strings.TrimSpace(cells.Eq(2).Text()); got != string(e.ActionName) || (c.action != "" && got != c.action) {
					t.Errorf("%s: entry %d action %q", c.query, n, got)
				}
				if got := cells.Eq(0).Find("time").First().AttrOr("datetime", ""); got != e.StartTime.In(pgBerlin(t)).Format(time.RFC3339) {
					t.Errorf("%s: entry %d start %q", c.query, n, got)
				}
				det := cells.Last().Find("details")
				if det.Find("summary").Text() != e.Message[:strings.Index(e.Message, "\n")]+" …" {
					t.Errorf("%s: entry %d summary %q", c.query, n, det.Find("summary").Text())
				}
				if !strings.Contains(det.Find("pre").Text(), "second line") {
					t.Errorf("%s: entry %d does not open its whole message", c.query, n)
				}
			})
			older := r.doc.Find("#history-older")
			next = older.AttrOr("href", "")
			if next != "" && (!strings.Contains(next, "before=") || older.AttrOr("hx-get", "") != next) {
				t.Errorf("%s: older link %q", c.query, next)
			}
			if pages > 0 && r.doc.Find("#history-newest").Length() != 1 {
				t.Errorf("%s: page %d has no link to the newest entries", c.query, pages+1)
			}
		}
		if len(seen) != c.want {
			t.Errorf("%s: %d entries over all pages, want %d", c.query, len(seen), c.want)
		}
		for i := 1; i < len(order); i++ {
			p, e := all[order[i-1]], all[order[i]]
			if e.StartTime.After(p.StartTime) || (e.StartTime.Equal(p.StartTime) && e.ID > p.ID) {
				t.Errorf("%s: %d after %d is not newest first", c.query, e.ID, p.ID)
			}
		}
	}

	// The full history page has the filter form with labels, the timeline
	// and the table.
	r := f.get(hist + "?status=Failed")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find(`#history-filter select#history-status option[selected]`).AttrOr("value", "") != "Failed" ||
		r.doc.Find(`label[for="history-status"]`).Length() != 1 || r.doc.Find(`label[for="history-action"]`).Length() != 1 {
		t.Error("the filter form does not show the filter or lacks labels")
	}
	if r.doc.Find("#job-timeline").Length() != 1 || r.doc.Find("#history-table tbody tr").Length() != 15 {
		t.Errorf("history page: timeline %d, rows %d", r.doc.Find("#job-timeline").Length(), r.doc.Find("#history-table tbody tr").Length())
	}
	if r.doc.Find("#job-status").Length() != 0 {
		t.Error("the history page shows the job's buttons")
	}
	// Bad parameters are a 400 naming them.
	for _, q := range []string{"?status=Running", "?action=Other", "?before=yesterday,1", "?before=2026-11-21T10:00:00Z", "?before=2026-11-21T10:00:00Z,-4", "?range=1y"} {
		r := f.get(hist + q)
		pgWantErrorPage(t, r, http.StatusBadRequest)
	}
	empty := f.hxGet(hist + "?status=Postponed&action=ErrorAction&before=2020-01-01T00:00:00Z,1")
	if !strings.Contains(empty.doc.Text(), "No entry matches this filter.") {
		t.Errorf("empty filtered page: %q", empty.doc.Text())
	}
}

func pgBerlin(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestTimelineDrawsEachExecutionWithWordsAndLateness(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	now := f.clock.Now()
	f.addHistory(j.ID, now.Add(-2*time.Hour), "Completed", "MainAction", 80, "200 OK")
	f.addHistory(j.ID, now.Add(-90*time.Minute), "Failed", "MainAction", 45*60*1000, "500 late")
	f.addHistory(j.ID, now.Add(-80*time.Minute), "Failed", "ErrorAction", 10, "500")
	f.addHistory(j.ID, now.Add(-70*time.Minute), "Postponed", "MainAction", 0, "Missed 3 occurrences")
	f.addHistory(j.ID, now.Add(-3*24*time.Hour), "Completed", "MainAction", 5, "200 three days ago")
	f.addHistory(j.ID, now.Add(-40*24*time.Hour), "Completed", "MainAction", 5, "200 forty days ago")
	tl := f.base + "/jobs/alpha/timeline?range="

	r := f.hxGet(tl + "24h")
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "job-timeline")
	svg := r.doc.Find(`svg[data-testid="timeline"]`)
	marks := svg.Find("g.timeline-mark")
	if marks.Length() != 4 {
		t.Fatalf("24 h: %d marks, want 4", marks.Length())
	}
	byStatus := map[string]int{}
	marks.Each(func(_ int, m *goquery.Selection) {
		byStatus[m.AttrOr("data-status", "")]++
		if m.AttrOr("tabindex", "") != "0" || m.AttrOr("aria-label", "") == "" || m.Find("title").Text() != m.AttrOr("aria-label", "") {
			t.Errorf("mark without focus, aria-label or title: %v", m.AttrOr("aria-label", ""))
		}
	})
	if byStatus["Completed"] != 1 || byStatus["Failed"] != 2 || byStatus["Postponed"] != 1 {
		t.Errorf("marks by status %v", byStatus)
	}
	// Shapes differ by status, not only colours.
	if svg.Find(`g[data-status="Completed"] circle`).Length() != 1 || svg.Find(`g[data-status="Failed"] rect`).Length() < 2 ||
		svg.Find(`g[data-status="Postponed"] polygon`).Length() != 1 {
		t.Error("the marks' shapes do not follow their status")
	}
	lanes := pgTexts(svg.Find("text.timeline-lane"))
	if strings.Join(lanes, "|") != "Completed|Failed|Postponed" {
		t.Errorf("lane labels %v", lanes)
	}
	late := svg.Find(`g[data-status="Failed"]`).First()
	if !strings.Contains(late.AttrOr("aria-label", ""), "45 min late") || late.Find("line").Length() != 2 {
		t.Errorf("the late mark: %q, %d lateness lines", late.AttrOr("aria-label", ""), late.Find("line").Length())
	}
	if first := svg.Find(`g[data-status="Completed"]`).AttrOr("aria-label", ""); first != "Completed, MainAction, retry count 1, started Sat 21 Nov 11:00:00 CET, expected Sat 21 Nov 10:59:59, 80 ms late, took 250 ms, 200 OK" {
		t.Errorf("completed mark label %q", first)
	}
	if got := r.doc.Find("#timeline-summary").Text(); !strings.HasPrefix(got, "4 executions in the last 24 hours: 1 Completed, 2 Failed, 1 Postponed.") {
		t.Errorf("summary %q", got)
	}
	if legend := pgTexts(r.doc.Find(`#job-timeline ul[aria-label="Legend"] li`)); len(legend) != 4 || legend[0] != "Completed (circle)" {
		t.Errorf("legend %v", legend)
	}
	ranges := r.doc.Find(`nav[aria-label="Timeline range"] a`)
	if got := pgTexts(ranges); strings.Join(got, "|") != "24 h|7 d|30 d|60 d" {
		t.Errorf("ranges %v", got)
	}
	if cur := r.doc.Find(`nav[aria-label="Timeline range"] a[aria-current]`); cur.Text() != "24 h" ||
		cur.AttrOr("hx-target", "") != "#job-timeline" || cur.AttrOr("hx-get", "") != tl+"24h" || cur.AttrOr("href", "") != f.base+"/jobs/alpha?range=24h" {
		t.Errorf("current range link %q hx-get %q href %q", cur.Text(), cur.AttrOr("hx-get", ""), cur.AttrOr("href", ""))
	}
	if ticks := svg.Find(`text[text-anchor="middle"]`).Length(); ticks < 6 {
		t.Errorf("24 h axis: %d labels", ticks)
	}

	for rng, want := range map[string]int{"7d": 5, "30d": 5, "60d": 6} {
		r := f.hxGet(tl + rng)
		if n := r.doc.Find("g.timeline-mark").Length(); n != want {
			t.Errorf("%s: %d marks, want %d", rng, n, want)
		}
	}
	// Without htmx the range link is the page at that range.
	wantRedirect(t, f.get(tl+"7d"), f.base+"/jobs/alpha/history?range=7d")
	page := f.get(f.base + "/jobs/alpha?range=7d")
	if page.doc.Find(`#job-timeline a[aria-current]`).Text() != "7 d" || page.doc.Find("g.timeline-mark").Length() != 5 {
		t.Error("the job page does not show the range it was asked for")
	}
}

func TestTimelineGroupsManyExecutions(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	now := f.clock.Now()
	f.sql(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status, message, lateness_ms)
		SELECT $1, $2::timestamptz - i * interval '1 minute', $2::timestamptz - i * interval '1 minute', 'MainAction',
		       CASE WHEN i % 10 = 0 THEN 'Failed' ELSE 'Completed' END, '', i
		FROM generate_series(1, 400) AS i`, j.ID, now)
	r := f.hxGet(f.base + "/jobs/alpha/timeline?range=24h")
	marks := r.doc.Find("g.timeline-mark")
	// 400 minutes in 15-minute groups: 27 or 28 groups of Completed,
	// and as many of Failed (one every 10 minutes).
	if marks.Length() < 40 || marks.Length() > 60 {
		t.Fatalf("%d group marks", marks.Length())
	}
	if !strings.Contains(r.doc.Text(), "each mark groups the executions of 15 min") {
		t.Error("no note that marks are groups")
	}
	if label := marks.First().AttrOr("aria-label", ""); !strings.Contains(label, "Completed executions, from") {
		t.Errorf("group label %q", label)
	}
	if got := r.doc.Find("#timeline-summary").Text(); !strings.HasPrefix(got, "400 executions in the last 24 hours: 360 Completed, 40 Failed.") {
		t.Errorf("summary %q", got)
	}
}
