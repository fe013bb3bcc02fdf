package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"

	"github.com/PuerkitoBio/goquery"
)

func TestJobPageShowsStatusAndNextOccurrences(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	f.schedule(j.ID, now.Add(30*time.Minute))
	f.sql(`UPDATE job_results SET execution_count = 7, failure_count = 2, faulted_count = 1 WHERE job_id = $1`, j.ID)
	f.addHistory(j.ID, now.Add(-90*time.Minute), models.StatusCompleted, models.MainAction, 30, "200 OK")
	f.addHistory(j.ID, now.Add(-30*time.Minute), models.StatusFailed, models.MainAction, 20, "503 Service Unavailable")

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
	// The message comes out of band; the status, the timeline, the
	// table and the trends refresh themselves on the event.
	if r.doc.Find(`#job-notice[hx-swap-oob="true"] #job-message`).Length() != 1 {
		t.Errorf("the message is not swapped out of band:\n%s", r.body)
	}
	page := f.get(path)
	for _, id := range []string{"job-status", "job-timeline", "history-table", "job-trends"} {
		el := page.doc.Find("#" + id)
		if el.AttrOr("hx-trigger", "") != "sked-history-changed from:body delay:1500ms" || el.AttrOr("hx-get", "") == "" {
			t.Errorf("#%s does not refresh after a run: hx-trigger %q", id, el.AttrOr("hx-trigger", ""))
		}
	}
	attempts, err := f.store.Attempts(context.Background(), j.ID)
	if err != nil || len(attempts) != 1 || attempts[0].Status != models.AttemptPending {
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

// TestJobPageDisableWithANote disables a job from its page with a note:
// the status shows who paused it, when and why; a bad note is refused in
// place (422, the field named) and changes nothing; enabling clears it.
func TestJobPageDisableWithANote(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "daily", pgJobJSON)
	path := "/c/default/rg/jc/jobs/daily"
	r := f.get(path)
	in := r.doc.Find(`form[action="` + path + `/disable"] input#job-disable-note[name="note"]`)
	if in.Length() != 1 || in.AttrOr("maxlength", "") != "500" || r.doc.Find(`label[for="job-disable-note"]`).Length() != 1 {
		t.Fatalf("no labelled note field in the disable form:\n%s", r.doc.Find("#job-status").Text())
	}

	before := f.fingerprint()
	r = f.hxPost(path+"/disable", url.Values{"note": {"two\u0007bells"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#job-error").Text(); !strings.Contains(got, "Note: may not hold control characters") {
		t.Errorf("refused note: %q", got)
	}
	if f.fingerprint() != before {
		t.Error("a refused note changed the job")
	}

	r = f.hxPost(path+"/disable", url.Values{"note": {"waiting for the vendor's maintenance"}})
	wantStatus(t, r, http.StatusOK)
	f.clock.Advance(2 * time.Hour)
	r = f.get(path)
	note := r.doc.Find("#job-state-note[role=note]")
	if got := strings.Join(strings.Fields(note.Text()), " "); got != "Paused by admin 2 h ago: waiting for the vendor's maintenance" {
		t.Errorf("note reads %q", got)
	}
	if note.Find("time[datetime]").AttrOr("title", "") == "" {
		t.Error("the note's time has no absolute time as its title")
	}
	// The collection page lists it too.
	if got := strings.Join(strings.Fields(f.get("/c/default/rg/jc").doc.Find(`tr[data-job="daily"] .state-note`).Text()), " "); got !=
		"Paused by admin 2 h ago: waiting for the vendor's maintenance" {
		t.Errorf("collection list note %q", got)
	}

	r = f.hxPost(path+"/enable", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#job-state-note").Length() != 0 {
		t.Errorf("enabling left the note: %q", r.doc.Find("#job-state-note").Text())
	}
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

// TestJobFormEditKeepsTheStateNote saves a paused job from its edit form
// (the builder has no note field): the job stays paused with its note.
func TestJobFormEditKeepsTheStateNote(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := lastFridayForm(csrf)
	form.Set("state", "disabled")
	wantStatus(t, a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode())), http.StatusOK)
	wantStatus(t, a.do(a.client, http.MethodPost, base+"/jobs/month-end/disable", nil, h,
		strings.NewReader(url.Values{"csrf_token": {csrf}, "note": {"vendor maintenance"}}.Encode())), http.StatusOK)
	wantStatus(t, a.get(base+"/jobs/month-end/edit"), http.StatusOK)
	form.Set("uri", "https://example.com/changed")
	wantStatus(t, a.do(a.client, http.MethodPost, base+"/jobs/month-end/edit", nil, h, strings.NewReader(form.Encode())), http.StatusOK)
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
	j, err := a.store.JobByName(context.Background(), coll.ID, "month-end")
	if err != nil {
		t.Fatal(err)
	}
	if j.State != jobdef.Disabled || j.StateNote != "vendor maintenance" || !strings.Contains(string(j.Definition), "/changed") {
		t.Errorf("after the edit: %s %q %s", j.State, j.StateNote, j.Definition)
	}
}
