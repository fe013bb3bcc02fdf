package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestJobFormBlank checks the blank new-job form: its ids are unique, it
// says nothing is missing before anything was typed, its tab buttons skip
// the browser's validation, and the JSON tab opens without a name.
func TestJobFormBlank(t *testing.T) {
	a, base := signedInWithCollection(t)
	r := a.do(a.client, http.MethodGet, base+"/jobs/new", nil, nil, nil)
	wantStatus(t, r, http.StatusOK)
	seen := map[string]int{}
	r.doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		seen[id]++
	})
	for id, n := range seen {
		if n > 1 {
			t.Errorf("id %q appears %d times", id, n)
		}
	}
	if txt := r.doc.Find("#preview-problems").Text() + r.doc.Find("#err-uri").Text(); strings.TrimSpace(txt) != "" {
		t.Errorf("the blank form shows errors: %q", txt)
	}
	if r.doc.Find("[hx-swap-oob]").Length() != 0 {
		t.Error("the page holds out-of-band slots")
	}
	for _, id := range []string{"tab-json", "cron-fill"} {
		if _, ok := r.doc.Find("#" + id).Attr("formnovalidate"); !ok {
			t.Errorf("#%s lacks formnovalidate", id)
		}
	}
	// The JSON tab of the blank form (no name) opens.
	csrf := a.csrf(base + "/jobs/new")
	form := url.Values{"csrf_token": {csrf}, "mode": {"form"}, "action_type": {"https"}, "method": {"GET"},
		"frequency": {"day"}, "interval": {"1"}, "end": {"never"}, "state": {"enabled"}, "switch": {"json"}}
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("textarea#json").Text(), `"frequency": "day"`) {
		t.Errorf("JSON tab: %s", r.body)
	}
}

// TestJobFormCompactPreview checks the compact preview after the schedule:
// on the page, and updated out of band by the builder's live preview (not
// the JSON tab's, which has none).
func TestJobFormCompactPreview(t *testing.T) {
	a, base := signedInWithCollection(t)
	r := a.do(a.client, http.MethodGet, base+"/jobs/new", nil, nil, nil)
	if r.doc.Find("#preview-compact").Length() != 1 {
		t.Fatal("no compact preview on the form")
	}
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := lastFridayForm(csrf)
	r = a.do(a.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	compact := r.doc.Find(`#preview-compact[hx-swap-oob="true"]`)
	if compact.Find("[data-datetime]").Length() != 3 || !strings.Contains(strings.ToLower(compact.Text()), "last friday") {
		t.Errorf("compact preview: %s", r.body)
	}
	form.Set("mode", "json")
	form.Set("json", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}}}`)
	r = a.do(a.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	if r.doc.Find("#preview-compact").Length() != 0 {
		t.Error("the JSON tab's preview updates a compact preview it does not have")
	}
}

// TestJobFormChips checks the minute and hour pickers: still one real
// checkbox per value under the same names, labelled, with the shortcuts.
func TestJobFormChips(t *testing.T) {
	a, base := signedInWithCollection(t)
	r := a.do(a.client, http.MethodGet, base+"/jobs/new", nil, nil, nil)
	if n := r.doc.Find(`input[type="checkbox"][name="minutes"][aria-label]`).Length(); n != 60 {
		t.Errorf("%d minute checkboxes, want 60", n)
	}
	if n := r.doc.Find(`input[type="checkbox"][name="hours"][aria-label]`).Length(); n != 24 {
		t.Errorf("%d hour checkboxes, want 24", n)
	}
	for _, step := range []string{"5", "10", "15", "30"} {
		if r.doc.Find(`button[type="button"][data-pick-name="minutes"][data-pick-step="`+step+`"]`).Length() != 1 {
			t.Errorf("no every-%s-minutes shortcut", step)
		}
	}
}
