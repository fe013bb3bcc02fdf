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

func TestCollectionPageListsJobsWithStateScheduleAndQuota(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	a := f.putJob(f.coll, "alpha", pgJobJSON)
	f.putJob(f.coll, "beta", strings.Replace(pgJobJSON, `"startTime"`, `"state":"disabled","startTime"`, 1))
	f.schedule(a.ID, now.Add(30*time.Minute))
	f.sql(`UPDATE job_results SET execution_count = 1234, failure_count = 5, faulted_count = 1 WHERE job_id = $1`, a.ID)
	f.addHistory(a.ID, now.Add(-time.Hour), models.StatusCompleted, models.MainAction, 10, "200")
	f.addHistory(a.ID, now.Add(-30*time.Minute), models.StatusFailed, models.MainAction, 10, "500")

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
	if _, err := f.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "P20Premium", State: models.CollectionEnabled}); err != nil {
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
	state := func() models.CollectionState {
		c, err := f.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
		if err != nil {
			t.Fatal(err)
		}
		return c.State
	}
	// Without the CSRF token: refused, nothing changed.
	before := f.fingerprint()
	wantStatus(t, f.post(f.base+"/disable", url.Values{}), http.StatusForbidden)
	wantStatus(t, f.do(f.client, http.MethodPost, f.base+"/disable", url.Values{}, http.Header{"HX-Request": {"true"}}), http.StatusForbidden)
	if f.fingerprint() != before || state() != models.CollectionEnabled {
		t.Fatal("a POST without the CSRF token changed the collection")
	}
	// htmx: the new status fragment.
	r := f.hxPost(f.base+"/disable", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "collection-status")
	if got := strings.TrimSpace(r.doc.Find("#collection-state").Text()); got != "Disabled" || r.doc.Find("#collection-enable").Length() != 1 {
		t.Errorf("after disable: state %q, enable button %d", got, r.doc.Find("#collection-enable").Length())
	}
	if !strings.Contains(r.doc.Find(`[role="status"]`).Text(), "disabled") || state() != models.CollectionDisabled {
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
	if state() != models.CollectionEnabled {
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

// TestCollectionPageDisableWithANote disables a collection from its page
// with a note: the status shows who paused it, when and why; a bad note
// is refused and changes nothing; enabling clears it.
func TestCollectionPageDisableWithANote(t *testing.T) {
	f := newPGFixture(t)
	path := "/c/default/rg/jc"
	r := f.get(path)
	in := r.doc.Find(`form[action="` + path + `/disable"] input#collection-disable-note[name="note"]`)
	if in.Length() != 1 || in.AttrOr("maxlength", "") != "500" || r.doc.Find(`label[for="collection-disable-note"]`).Length() != 1 {
		t.Fatalf("no labelled note field in the disable form:\n%s", r.doc.Find("#collection-status").Text())
	}

	before := f.fingerprint()
	r = f.hxPost(path+"/disable", url.Values{"note": {"two\u0007bells"}})
	if r.StatusCode < 400 || r.StatusCode >= 500 {
		t.Errorf("a bad note answered %d, want a refusal", r.StatusCode)
	}
	if f.fingerprint() != before {
		t.Error("a refused note changed the collection")
	}

	r = f.hxPost(path+"/disable", url.Values{"note": {"vendor maintenance"}})
	wantStatus(t, r, http.StatusOK)
	if got := strings.Join(strings.Fields(r.doc.Find("#collection-state-note").Text()), " "); !strings.HasSuffix(got, ": vendor maintenance") {
		t.Errorf("the fragment's note reads %q", got)
	}
	f.clock.Advance(2 * time.Hour)
	r = f.get(path)
	note := r.doc.Find("#collection-status #collection-state-note[role=note]")
	if got := strings.Join(strings.Fields(note.Text()), " "); got != "Paused by admin 2 h ago: vendor maintenance" {
		t.Errorf("note reads %q", got)
	}
	if note.Find("time[datetime]").AttrOr("title", "") == "" {
		t.Error("the note's time has no absolute time as its title")
	}

	r = f.hxPost(path+"/enable", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#collection-state-note").Length() != 0 {
		t.Errorf("enabling left the note: %q", r.doc.Find("#collection-state-note").Text())
	}
}

// TestCollectionPageChangesTheNoteOfADisabledCollection is the job test
// for a collection: the form while it is disabled, saved through the
// catalog (audited), a bad note refused in place, none for an enabled
// collection.
func TestCollectionPageChangesTheNoteOfADisabledCollection(t *testing.T) {
	f := newPGFixture(t)
	path := "/c/default/rg/jc"
	if f.get(path).doc.Find("#collection-note-form").Length() != 0 {
		t.Fatal("an enabled collection shows the note form")
	}
	before := f.fingerprint()
	wantStatus(t, f.hxPost(path+"/note", url.Values{"note": {"sneaky"}}), http.StatusBadRequest)
	if f.fingerprint() != before {
		t.Error("a note for an enabled collection changed it")
	}
	wantStatus(t, f.hxPost(path+"/disable", url.Values{"note": {"vendor maintenance"}}), http.StatusOK)
	r := f.get(path)
	in := r.doc.Find(`#collection-status form#collection-note-form[hx-target="#collection-status"] input#collection-note[name="note"]`)
	if in.AttrOr("value", "") != "vendor maintenance" || strings.TrimSpace(r.doc.Find(`label[for="collection-note"]`).Text()) != "Why is it paused?" {
		t.Fatalf("no labelled note form holding the note:\n%s", r.doc.Find("#collection-status").Text())
	}

	before = f.fingerprint()
	audits := f.auditCount("collection.state")
	r = f.hxPost(path+"/note", url.Values{"note": {strings.Repeat("y", 501)}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	pgWantFragment(t, r, "collection-status")
	if got := r.doc.Find("#collection-note-error").Text(); !strings.Contains(got, "over the maximum of 500") {
		t.Errorf("refused note: %q", got)
	}
	if f.fingerprint() != before || f.auditCount("collection.state") != audits {
		t.Error("a refused note changed the collection or wrote an audit entry")
	}

	r = f.hxPost(path+"/note", url.Values{"note": {"until the migration ends"}})
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "collection-status")
	if got := noteText(r, "collection-state-note"); got != "Paused by admin just now: until the migration ends" {
		t.Errorf("note after saving %q", got)
	}
	if got := strings.TrimSpace(r.doc.Find("#collection-state").Text()); got != "Disabled" {
		t.Errorf("state after a note %q", got)
	}
	if got := f.auditCount("collection.state"); got != audits+1 {
		t.Errorf("%d collection.state audit entries, want %d", got, audits+1)
	}
	f.asMember("rita", models.RoleReader)
	if f.get(path).doc.Find("#collection-note-form").Length() != 0 {
		t.Error("a reader sees the collection's note form")
	}
	wantStatus(t, f.hxPost(path+"/note", url.Values{"note": {"mine"}}), http.StatusForbidden)
}
