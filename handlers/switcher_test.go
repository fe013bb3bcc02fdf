package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
	"sked/scheduler/catalog"
)

// switcherChoices is the header's workspace switcher of r: each choice as
// "label|role|href", the current one marked with a leading "*".
func switcherChoices(r *response) []string {
	var out []string
	r.doc.Find("#ws-switcher #ws-choices a").Each(func(_ int, a *goquery.Selection) {
		label := strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(a.Find("span.truncate").Text()), "✓")), " ")
		s := label + "|" + strings.TrimSpace(a.Find("span.shrink-0").Text()) + "|" + a.AttrOr("href", "")
		if a.AttrOr("aria-current", "") == "true" {
			s = "*" + s
		}
		out = append(out, s)
	})
	return out
}

// current is what the closed switcher of r shows: "label role".
func current(r *response) string {
	return strings.Join(strings.Fields(r.doc.Find("#ws-switcher summary").Text()), " ")
}

// collectionNames are the collections of the dashboard r.
func collectionNames(r *response) []string {
	return pgTexts(r.doc.Find("#collections tbody tr td:first-child"))
}

// TestWorkspaceSwitcherOneWorkspace checks the switcher of a user with
// one workspace: "All my workspaces" and the workspace with the role, the
// dashboard and the navigation of each choice.
func TestWorkspaceSwitcherOneWorkspace(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "alpha", pgJobJSON)

	r := f.get("/")
	wantStatus(t, r, http.StatusOK)
	if got := current(r); got != "Workspace: All my workspaces ▾" {
		t.Errorf("switcher shows %q", got)
	}
	if got, want := strings.Join(switcherChoices(r), "\n"), "*All my workspaces||/\nDefault|Owner|/?ws=default"; got != want {
		t.Errorf("choices:\n%s\nwant:\n%s", got, want)
	}
	if got := r.doc.Find("summary").First().Parent().AttrOr("id", ""); got != "ws-switcher" {
		t.Errorf("the switcher is not a details disclosure: %q", got)
	}

	r = f.get("/?ws=default")
	wantStatus(t, r, http.StatusOK)
	if got := current(r); got != "Workspace: Default Owner ▾" {
		t.Errorf("switcher shows %q", got)
	}
	if got := strings.Join(switcherChoices(r), "\n"); got != "All my workspaces||/\n*Default|Owner|/?ws=default" {
		t.Errorf("choices:\n%s", got)
	}
	if got := collectionNames(r); strings.Join(got, ",") != "jc" {
		t.Errorf("collections %v", got)
	}
	nav := map[string]string{}
	for _, id := range []string{"nav-all-jobs", "nav-calendars", "nav-month"} {
		nav[id] = r.doc.Find("#"+id).AttrOr("href", "")
	}
	if nav["nav-all-jobs"] != "/jobs?ws=default" || nav["nav-calendars"] != "/w/default/calendars" || nav["nav-month"] != "/w/default/month" {
		t.Errorf("navigation %v", nav)
	}
	if got := r.doc.Find("header nav > div > a").First().AttrOr("href", ""); got != "/?ws=default" {
		t.Errorf("home link %q", got)
	}
}

// TestWorkspaceSwitcherSeveralWorkspaces checks the dashboard and "All
// jobs" per chosen workspace and for all of the user's, never a workspace
// the user is not a member of, and where the switcher's choices lead from
// each kind of page.
func TestWorkspaceSwitcherSeveralWorkspaces(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	now := f.clock.Now()
	alpha := f.putJob(f.coll, "alpha", pgJobJSON)
	f.schedule(alpha.ID, now.Add(30*time.Minute))
	f.addHistory(alpha.ID, now.Add(-2*time.Hour), models.StatusFailed, models.MainAction, 0, "alpha failed")
	other := f.otherWorkspace() // "other": its job x
	admin, err := f.store.UserByName(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	f.sql(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('other', $1, 'reader')`, admin.ID)
	x, err := f.store.JobByName(ctx, other.ID, "x")
	if err != nil {
		t.Fatal(err)
	}
	f.schedule(x.ID, now.Add(10*time.Minute))
	f.addHistory(x.ID, now.Add(-1*time.Hour), models.StatusFailed, models.MainAction, 0, "x failed")
	f.addHistory(x.ID, now.Add(-1*time.Hour+time.Minute), models.StatusCompleted, models.MainAction, 0, "x ok")
	// A third workspace the user is not a member of.
	f.sql(`INSERT INTO workspaces (id, display_name) VALUES ('third', 'Third')`)
	if _, err := f.store.PutCollection(ctx, models.CollectionRef{WorkspaceID: "third", ResourceGroup: "rg", Name: "hidden"},
		&models.JobCollection{SKU: "Standard", State: models.CollectionEnabled}); err != nil {
		t.Fatal(err)
	}

	// All my workspaces.
	r := f.get("/")
	wantStatus(t, r, http.StatusOK)
	if got, want := strings.Join(switcherChoices(r), "\n"), "*All my workspaces||/\nDefault|Owner|/?ws=default\nOther|Reader|/?ws=other"; got != want {
		t.Errorf("choices:\n%s\nwant:\n%s", got, want)
	}
	if got := collectionNames(r); strings.Join(got, ",") != "jc,theirs" {
		t.Errorf("all: collections %v", got)
	}
	if got := pgTexts(r.doc.Find("#upcoming li")); len(got) != 2 {
		t.Errorf("all: upcoming %v", got)
	}
	if got := r.doc.Find("#activity-summary").Text(); !strings.HasPrefix(got, "3 executions") {
		t.Errorf("all: activity %q", got)
	}

	// One of several, named in any case.
	for _, q := range []string{"other", "OTHER"} {
		r = f.get("/?ws=" + q)
		wantStatus(t, r, http.StatusOK)
		if got := current(r); got != "Workspace: Other Reader ▾" {
			t.Errorf("%s: switcher shows %q", q, got)
		}
		if got := collectionNames(r); strings.Join(got, ",") != "theirs" {
			t.Errorf("%s: collections %v", q, got)
		}
		if got := pgTexts(r.doc.Find("#upcoming li")); len(got) != 1 || !strings.Contains(got[0], "theirs") {
			t.Errorf("%s: upcoming %v", q, got)
		}
		if fails := r.doc.Find("#failures li"); fails.Length() != 1 || !strings.Contains(fails.Text(), "x failed") {
			t.Errorf("%s: failures %v", q, pgTexts(fails))
		}
		if got := r.doc.Find("#activity-summary").Text(); got != "2 executions in the last 24 hours: 1 Completed, 1 Failed." {
			t.Errorf("%s: activity %q", q, got)
		}
		if got := r.doc.Find("#nav-all-jobs").AttrOr("href", ""); got != "/jobs?ws=other" {
			t.Errorf("%s: All jobs link %q", q, got)
		}
	}
	r = f.get("/?ws=default")
	if got := collectionNames(r); strings.Join(got, ",") != "jc" || strings.Contains(r.body, "x failed") {
		t.Errorf("default: collections %v, or other's failure shown", got)
	}
	if got := r.doc.Find("#activity-summary").Text(); got != "1 execution in the last 24 hours: 1 Failed." {
		t.Errorf("default: activity %q", got)
	}

	// Not a member, or no such workspace: 400 naming ws.
	for _, q := range []string{"third", "nowhere"} {
		r = f.get("/?ws=" + q)
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(r.doc.Find("#error").Text(), "ws: no workspace "+q+" among yours") || strings.Contains(r.body, "/c/third") {
			t.Errorf("%s: %s", q, r.body)
		}
		wantStatus(t, f.get("/jobs?ws="+q), http.StatusBadRequest)
	}

	// All jobs: per workspace, the choice kept by the form, the paging
	// and the address htmx pushes.
	r = f.get("/jobs")
	wantStatus(t, r, http.StatusOK)
	if got := pgTexts(r.doc.Find("#all-jobs-results tr[data-job] td:first-child")); strings.Join(got, ",") != "x,alpha" {
		t.Errorf("all jobs: %v", got)
	}
	if got := strings.Join(switcherChoices(r), "\n"); got != "*All my workspaces||/jobs\nDefault|Owner|/jobs?ws=default\nOther|Reader|/jobs?ws=other" {
		t.Errorf("choices from All jobs:\n%s", got)
	}
	r = f.get("/jobs?ws=other")
	wantStatus(t, r, http.StatusOK)
	if got := pgTexts(r.doc.Find("#all-jobs-results tr[data-job] td:first-child")); strings.Join(got, ",") != "x" {
		t.Errorf("other's jobs: %v", got)
	}
	if got := r.doc.Find(`#all-jobs-filter input[type="hidden"][name="ws"]`).AttrOr("value", ""); got != "other" {
		t.Errorf("the form does not keep the workspace: %q", got)
	}
	if got := pgTexts(r.doc.Find("#all-jobs-collection option")); strings.Join(got, ",") != "Any collection,other/rg/theirs" {
		t.Errorf("collections offered: %v", got)
	}
	if got := current(r); got != "Workspace: Other Reader ▾" {
		t.Errorf("switcher on All jobs shows %q", got)
	}
	wantStatus(t, f.get("/jobs?ws=other&collection=default/rg/jc"), http.StatusBadRequest)
	r = f.hxGet("/jobs?ws=other&q=x&state=")
	wantStatus(t, r, http.StatusOK)
	if got := r.Header.Get("HX-Push-Url"); got != "/jobs?q=x&ws=other" {
		t.Errorf("HX-Push-Url %q", got)
	}
	r = f.get("/jobs?ws=other&state=enabled")
	if got := r.doc.Find("#all-jobs-clear").AttrOr("href", ""); got != "/jobs?ws=other" {
		t.Errorf("clear link %q", got)
	}

	// The calendars page: the choices lead to each workspace's calendars.
	r = f.get("/w/other/calendars")
	wantStatus(t, r, http.StatusOK)
	if got := strings.Join(switcherChoices(r), "\n"); got != "All my workspaces||/calendars\nDefault|Owner|/w/default/calendars\n*Other|Reader|/w/other/calendars" {
		t.Errorf("choices from calendars:\n%s", got)
	}
	// A collection page: the choices lead to the dashboards.
	r = f.get("/c/other/rg/theirs")
	wantStatus(t, r, http.StatusOK)
	if got := strings.Join(switcherChoices(r), "\n"); got != "All my workspaces||/\nDefault|Owner|/?ws=default\n*Other|Reader|/?ws=other" {
		t.Errorf("choices from a collection:\n%s", got)
	}
	// A page of no workspace: all chosen.
	r = f.get("/account")
	wantStatus(t, r, http.StatusOK)
	if got := current(r); got != "Workspace: All my workspaces ▾" {
		t.Errorf("account page switcher %q", got)
	}
}

// TestAllCalendarsPage checks the calendars of all the user's workspaces:
// a section per workspace with its calendars, none of a workspace the user
// is not a member of, and the switcher leading to each workspace's
// calendars page.
func TestAllCalendarsPage(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	f.withHolidays()
	f.putJob(f.coll, "daily", dailyExcluding)
	f.otherWorkspace()
	admin, err := f.store.UserByName(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	f.sql(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('other', $1, 'reader')`, admin.ID)
	f.sql(`INSERT INTO workspaces (id, display_name) VALUES ('third', 'Third')`)
	for _, ws := range []string{"other", "third"} {
		if _, _, err := f.cat.PutCalendar(ctx, catalog.System("test"), ws, "closures-"+ws, []byte(pageHolidays)); err != nil {
			t.Fatal(err)
		}
	}

	r := f.get("/")
	if got := r.doc.Find("#nav-calendars").AttrOr("href", ""); got != "/calendars" {
		t.Errorf("calendars link with all workspaces chosen: %q", got)
	}
	r = f.get("/calendars")
	wantStatus(t, r, http.StatusOK)
	var sections []string
	r.doc.Find("#calendar-list section").Each(func(_ int, s *goquery.Selection) {
		sections = append(sections, s.AttrOr("data-workspace", "")+":"+strings.TrimSpace(s.Find("h2 a").Text())+":"+
			s.Find("h2 a").AttrOr("href", "")+":"+strings.Join(pgTexts(s.Find("tr[data-calendar] td:first-child")), ","))
	})
	if got, want := strings.Join(sections, "\n"), "default:Default:/w/default/calendars:holidays\nother:Other:/w/other/calendars:closures-other"; got != want {
		t.Errorf("sections:\n%s\nwant:\n%s", got, want)
	}
	if row := strings.Join(strings.Fields(r.doc.Find(`tr[data-calendar="holidays"]`).Text()), " "); !strings.Contains(row, "rg/jc/daily") {
		t.Errorf("holidays row %q does not name the job using it", row)
	}
	if strings.Contains(r.body, "closures-third") {
		t.Error("a calendar of a workspace the user is not a member of is listed")
	}
	if got := strings.Join(switcherChoices(r), "\n"); got != "*All my workspaces||/calendars\nDefault|Owner|/w/default/calendars\nOther|Reader|/w/other/calendars" {
		t.Errorf("choices from all calendars:\n%s", got)
	}
	if got := r.doc.Find("#nav-calendars").AttrOr("aria-current", ""); got != "page" {
		t.Errorf("calendars link not marked current: %q", got)
	}
}

// TestNewCollectionInChosenWorkspace checks that "New collection" on a
// workspace's dashboard creates the collection in that workspace, and
// that a workspace the user is not a member of is refused (400 naming ws,
// nothing created).
func TestNewCollectionInChosenWorkspace(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	f.otherWorkspace()
	admin, err := f.store.UserByName(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	f.sql(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('other', $1, 'editor')`, admin.ID)
	f.sql(`INSERT INTO workspaces (id, display_name) VALUES ('third', 'Third')`)

	r := f.get("/?ws=other")
	link := r.doc.Find(`main a[href^="/collections/new"]`).AttrOr("href", "")
	if link != "/collections/new?ws=other" {
		t.Fatalf("New collection link %q", link)
	}
	r = f.get(link)
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find(`#collection-form input[name="ws"]`).AttrOr("value", ""); got != "other" {
		t.Errorf("the form's workspace %q", got)
	}
	if got := current(r); got != "Workspace: Other Editor ▾" {
		t.Errorf("switcher on the form %q", got)
	}
	r = f.formPost("/collections/new", url.Values{"ws": {"other"}, "collection_name": {"nightly"}, "resource_group": {"ops"}, "sku": {"Standard"}})
	wantRedirect(t, r, "/c/other/ops/nightly")
	if _, err := f.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: "other", ResourceGroup: "ops", Name: "nightly"}); err != nil {
		t.Errorf("not created in other: %v", err)
	}

	wantStatus(t, f.get("/collections/new?ws=third"), http.StatusBadRequest)
	r = f.formPost("/collections/new", url.Values{"ws": {"third"}, "collection_name": {"nightly"}, "resource_group": {"ops"}, "sku": {"Standard"}})
	wantStatus(t, r, http.StatusBadRequest)
	if _, err := f.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: "third", ResourceGroup: "ops", Name: "nightly"}); err == nil {
		t.Error("created in a workspace the user is not a member of")
	}
	// Without a workspace: the first one, as before.
	r = f.formPost("/collections/new", url.Values{"collection_name": {"first"}, "resource_group": {"ops"}, "sku": {"Standard"}})
	wantRedirect(t, r, "/c/default/ops/first")
}
