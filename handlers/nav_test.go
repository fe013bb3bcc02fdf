package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
)

// TestHeaderNavigation checks the header of every kind of page: the
// primary links in #nav-primary, the others in the "More" menu (a
// details disclosure with a summary, usable without scripts), the
// account link and Sign out; exactly one link marked aria-current="page"
// on the pages it names (and the More summary bold when that link is in
// the menu); Users only for administrators; no navigation on the sign-in
// page.
func TestHeaderNavigation(t *testing.T) {
	f := newPGFixture(t)
	for _, tc := range []struct {
		path, current string
		inMore        bool
	}{
		{"/jobs", "nav-all-jobs", false},
		{"/w/default/running", "nav-running", false},
		{"/w/default/calendars", "nav-calendars", false},
		{"/w/default/month", "nav-month", false},
		{"/w/default/channels", "nav-channels", false},
		{"/w/default/monitors", "nav-monitors", true},
		{"/import", "nav-import", true},
		{"/w/default/audit", "nav-audit", true},
		{"/w/default/targets", "nav-targets", true},
		{"/workspaces", "nav-workspaces", true},
		{"/tokens", "nav-tokens", true},
		{"/users", "nav-users", true},
		{"/account", "current-user", false},
		{"/", "", false},
		{"/c/default/rg/jc", "", false},
	} {
		r := f.get(tc.path)
		wantStatus(t, r, http.StatusOK)
		nav := r.doc.Find(`header nav[aria-label="Main"]`)
		if got := strings.Join(pgTexts(nav.Find("#nav-primary > li > a")), ","); got != "All jobs,Running now,Calendars,Month view,Channels" {
			t.Errorf("%s: primary links %q", tc.path, got)
		}
		more := nav.Find("details#nav-more")
		if more.Find("summary#nav-more-button").Length() != 1 {
			t.Fatalf("%s: no More menu with a summary", tc.path)
		}
		var ids []string
		more.Find("#nav-more-links a[id]").Each(func(_ int, a *goquery.Selection) { ids = append(ids, a.AttrOr("id", "")) })
		if got := strings.Join(ids, ","); got != "nav-monitors,nav-import,nav-audit,nav-targets,nav-workspaces,nav-tokens,nav-users" {
			t.Errorf("%s: More menu %q", tc.path, got)
		}
		if more.Find(`button[type="submit"][form="nav-signout"]`).Length() != 1 || nav.Find(`form#nav-signout[action="/signout"] button`).Length() != 1 {
			t.Errorf("%s: no Sign out in the header and the menu", tc.path)
		}
		// The link, and its copy in a phone's menu (no id) for the
		// primary links and the account.
		cur := nav.Find(`[aria-current="page"]`)
		withID := cur.Filter("[id]")
		switch {
		case tc.current == "" && cur.Length() != 0:
			t.Errorf("%s: marks %q as current", tc.path, cur.Text())
		case tc.current != "" && (withID.Length() != 1 || withID.AttrOr("id", "") != tc.current || cur.Length() > 2):
			t.Errorf("%s: current %d links (%q), want #%s", tc.path, cur.Length(), withID.AttrOr("id", ""), tc.current)
		}
		cur.Each(func(_ int, a *goquery.Selection) {
			if a.AttrOr("href", "") != withID.AttrOr("href", "") {
				t.Errorf("%s: current links lead to %q and %q", tc.path, a.AttrOr("href", ""), withID.AttrOr("href", ""))
			}
		})
		if bold := strings.Contains(more.Find("summary").AttrOr("class", ""), "font-semibold"); bold != tc.inMore {
			t.Errorf("%s: More summary bold %v, want %v", tc.path, bold, tc.inMore)
		}
	}
	if got := f.get("/").doc.Find("#nav-audit").AttrOr("href", ""); got != "/w/default/audit" {
		t.Errorf("audit link %q", got)
	}

	f.asMember("olga", models.RoleOperator)
	r := f.get("/")
	if r.doc.Find("#nav-users").Length() != 0 || r.doc.Find("#nav-workspaces").Length() != 1 {
		t.Errorf("a member who is not an administrator: users link %d", r.doc.Find("#nav-users").Length())
	}
	if got := strings.TrimSpace(r.doc.Find("#current-user").Text()); got != "olga" {
		t.Errorf("current user %q", got)
	}

	f.client = newClient()
	r = f.get("/signin")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#nav-more, #nav-primary, #current-user").Length() != 0 {
		t.Error("the sign-in page shows the navigation")
	}
}
