package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
)

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

// TestJobPageChangesTheNoteOfADisabledJob changes why a disabled job is
// paused from its page: the form shows only while it is disabled, holds
// the current note and swaps #job-status (audited, by whoever saved it);
// a bad note is refused in place (422, the field named, the typed note
// kept) and changes nothing; a note for an enabled job is a 400 naming
// stateNote; a reader sees no form and is forbidden to post one.
func TestJobPageChangesTheNoteOfADisabledJob(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "daily", pgJobJSON)
	path := "/c/default/rg/jc/jobs/daily"
	if f.get(path).doc.Find("#job-note-form").Length() != 0 {
		t.Fatal("an enabled job shows the note form")
	}
	before := f.fingerprint()
	wantStatus(t, f.hxPost(path+"/note", url.Values{"note": {"sneaky"}}), http.StatusBadRequest)
	if r := f.formPost(path+"/note", url.Values{"note": {"sneaky"}}); r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, "stateNote") {
		t.Errorf("a note for an enabled job answered %d:\n%.300s", r.StatusCode, r.body)
	}
	if f.fingerprint() != before {
		t.Error("a note for an enabled job changed it")
	}

	wantStatus(t, f.hxPost(path+"/disable", url.Values{"note": {"vendor maintenance"}}), http.StatusOK)
	r := f.get(path)
	form := r.doc.Find(`#job-status form#job-note-form[action="` + path + `/note"][hx-post="` + path + `/note"][hx-target="#job-status"]`)
	in := form.Find(`input#job-note[name="note"]`)
	if form.Length() != 1 || in.AttrOr("value", "") != "vendor maintenance" || in.AttrOr("maxlength", "") != "500" ||
		strings.TrimSpace(r.doc.Find(`label[for="job-note"]`).Text()) != "Why is it paused?" || in.AttrOr("aria-describedby", "") != "job-note-error" {
		t.Fatalf("no labelled note form holding the note:\n%s", r.doc.Find("#job-status").Text())
	}

	// A bad note: in place, the typed text kept, nothing changed.
	before = f.fingerprint()
	audits := f.auditCount("job.disable")
	long := strings.Repeat("x", 501)
	for _, bad := range []string{"two\nlines", long} {
		r = f.hxPost(path+"/note", url.Values{"note": {bad}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		pgWantFragment(t, r, "job-status")
		if got := r.doc.Find("#job-note-error").Text(); !strings.HasPrefix(got, "Note: ") {
			t.Errorf("refused %.10q: error %q", bad, got)
		}
		if r.doc.Find("#job-note").AttrOr("value", "") != bad || r.doc.Find("#job-note").AttrOr("aria-invalid", "") != "true" {
			t.Errorf("refused %.10q: the field holds %q", bad, r.doc.Find("#job-note").AttrOr("value", ""))
		}
	}
	r = f.formPost(path+"/note", url.Values{"note": {"tab\there"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find(`nav[aria-label="Main"]`).Length() != 1 || !strings.HasPrefix(r.doc.Find("#job-note-error").Text(), "Note: ") {
		t.Errorf("without htmx a bad note wants the whole page with the error in place:\n%.500s", r.body)
	}
	if f.fingerprint() != before || f.auditCount("job.disable") != audits {
		t.Error("a refused note changed the job or wrote an audit entry")
	}

	// Saved by an operator: the note and who changed it follow.
	f.clock.Advance(time.Hour)
	f.asMember("olga", models.RoleOperator)
	r = f.hxPost(path+"/note", url.Values{"note": {" back on Monday "}})
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "job-status")
	if got := noteText(r, "job-state-note"); got != "Paused by olga just now: back on Monday" {
		t.Errorf("note after saving %q", got)
	}
	if got := r.doc.Find("#job-note").AttrOr("value", ""); got != "back on Monday" {
		t.Errorf("the field holds %q after saving", got)
	}
	if got := strings.TrimSpace(r.doc.Find("#job-notice").Text()); got != "The note is saved." {
		t.Errorf("notice %q", got)
	}
	if got := f.auditCount("job.disable"); got != audits+1 {
		t.Errorf("%d job.disable audit entries, want %d", got, audits+1)
	}
	if got := strings.TrimSpace(f.get(path).doc.Find("#job-state").Text()); got != "Disabled" {
		t.Errorf("the job is %q after a note, want Disabled", got)
	}
	// Without htmx: a redirect to the job page with the message.
	wantRedirect(t, f.formPost(path+"/note", url.Values{"note": {"after the audit"}}), path)
	if got := noteText(f.get(path), "job-state-note"); !strings.HasSuffix(got, ": after the audit") {
		t.Errorf("note after a plain post %q", got)
	}

	// A reader sees the note but no form, and may not post one.
	f.asMember("rita", models.RoleReader)
	r = f.get(path)
	if r.doc.Find("#job-note-form").Length() != 0 || !strings.HasSuffix(noteText(r, "job-state-note"), ": after the audit") {
		t.Errorf("a reader's job page: form %d, note %q", r.doc.Find("#job-note-form").Length(), noteText(r, "job-state-note"))
	}
	before = f.fingerprint()
	wantStatus(t, f.hxPost(path+"/note", url.Values{"note": {"mine"}}), http.StatusForbidden)
	if f.fingerprint() != before {
		t.Error("a reader changed the note")
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

// TestARMPatchOfOnlyTheNote pauses a job from its page, then PATCHes only
// properties.stateNote through the API: the note changes (GET and the
// job page show it), the job stays disabled and the change is audited.
func TestARMPatchOfOnlyTheNote(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	f.putJob(f.coll, "daily", pgJobJSON)
	page := "/c/default/rg/jc/jobs/daily"
	wantStatus(t, f.hxPost(page+"/disable", url.Values{"note": {"first reason"}}), http.StatusOK)
	audits := f.auditCount("job.patch") + f.auditCount("job.disable")
	api := rgPath("rg") + "/jc/jobs/daily"
	wantStatus(t, f.arm(http.MethodPatch, api, `{"properties":{"stateNote":"second reason"}}`), http.StatusOK)
	r := f.arm(http.MethodGet, api, "")
	wantStatus(t, r, http.StatusOK)
	got := decode[struct {
		Properties struct {
			State     string `json:"state"`
			StateNote string `json:"stateNote"`
		} `json:"properties"`
	}](t, r).Properties
	if got.State != "disabled" || got.StateNote != "second reason" {
		t.Errorf("after a PATCH of the note: %s", r.body)
	}
	if n := noteText(f.get(page), "job-state-note"); !strings.HasSuffix(n, ": second reason") {
		t.Errorf("the job page's note %q", n)
	}
	if n := f.auditCount("job.patch") + f.auditCount("job.disable"); n != audits+1 {
		t.Errorf("%d audit entries for the PATCH, want 1", n-audits)
	}
}
