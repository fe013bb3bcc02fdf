package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestMonitorPageRefreshesItself: the monitor page's #monitor-live asks
// for itself every 10 seconds; the page's URL with htmx answers only that
// fragment (and the header's badge out of band), which shows a ping
// received since, without the ping URL or the editing forms.
func TestMonitorPageRefreshesItself(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "correct horse battery")
	a.signIn("ada", "correct horse battery")
	form := url.Values{"csrf_token": {a.csrf("/w/default/monitors/new")}, "name": {"backup"}, "frequency": {"day"},
		"interval": {"1"}, "hours": {"2"}, "minutes": {"0"}, "grace": {"PT10M"}}
	wantRedirect(t, a.post("/w/default/monitors/new", form), "/w/default/monitors/backup")

	r := a.get("/w/default/monitors/backup")
	wantStatus(t, r, http.StatusOK)
	live := r.doc.Find("#monitor-live")
	if live.Length() != 1 || live.AttrOr("hx-get", "") != "/w/default/monitors/backup" || live.AttrOr("hx-trigger", "") != "every 10s" ||
		live.AttrOr("hx-swap", "") != "outerHTML" || live.Find("#monitor-no-pings").Length() != 1 {
		t.Fatalf("the page's live block: %q", live.Text())
	}
	pingURL := r.doc.Find("#monitor-ping-url").AttrOr("value", "")
	u, err := url.Parse(pingURL)
	if err != nil || u.Path == "" {
		t.Fatalf("ping URL %q", pingURL)
	}
	wantStatus(t, a.do(a.client, http.MethodPost, u.Path+"/fail", nil, nil, strings.NewReader("disk full")), http.StatusOK)

	r = a.do(a.client, http.MethodGet, "/w/default/monitors/backup", nil, http.Header{"HX-Request": {"true"}})
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "<html") || r.doc.Find("#monitor-ping-url, #monitor-rotate, #monitor-delete").Length() != 0 {
		t.Errorf("the fragment is more than the live block:\n%s", r.body)
	}
	live = r.doc.Find("#monitor-live")
	if live.Length() != 1 || live.AttrOr("hx-trigger", "") != "every 10s" || live.Find("[data-ping]").Length() != 1 ||
		!strings.Contains(live.Find("#monitor-pings").Text(), "disk full") {
		t.Errorf("the fragment's pings: %q", live.Text())
	}
	if badge := r.doc.Find(`#monitor-status[hx-swap-oob="true"]`); badge.Length() != 1 {
		t.Errorf("the fragment does not replace the header's badge")
	}
}
