package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
)

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

// TestAccountPagesShowRelativeTimes checks that the tokens and sessions
// pages write each time with how far it is beside it.
func TestAccountPagesShowRelativeTimes(t *testing.T) {
	f := newPGFixture(t)
	f.clock.Advance(3 * time.Hour)
	for _, path := range []string{"/tokens", "/account", "/users"} {
		if path == "/tokens" {
			f.formPost("/tokens", url.Values{"name": {"ci"}})
		}
		r := f.get(path)
		wantStatus(t, r, http.StatusOK)
		tm := r.doc.Find("main time[datetime]").First()
		if tm.Length() == 0 {
			t.Errorf("%s: no time", path)
			continue
		}
		rel := strings.TrimSpace(tm.Next().Text())
		if !strings.HasPrefix(rel, "(") || !strings.HasSuffix(rel, ")") || !strings.Contains(tm.AttrOr("title", ""), strings.TrimSpace(tm.Text())+" "+rel) {
			t.Errorf("%s: time %q, relative %q, title %q", path, tm.Text(), rel, tm.AttrOr("title", ""))
		}
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
	if j.State != "disabled" || j.StateNote != "vendor maintenance" || !strings.Contains(string(j.Definition), "/changed") {
		t.Errorf("after the edit: %s %q %s", j.State, j.StateNote, j.Definition)
	}
}
