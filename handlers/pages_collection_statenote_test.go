package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

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
