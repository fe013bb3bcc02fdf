package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

// auditJob is a job with a secret (the basic password "hunter2").
const auditJob = `{"properties": {"action": {"type": "http", "request": {"uri": "https://example.com/x", "method": "GET",
	"authentication": {"type": "basic", "username": "u", "password": "hunter2"}}}, "recurrence": {"frequency": "hour"}}}`

// TestAuditLogOfAPIAndPageWrites writes through the ARM API (a token) and
// a page (a session) and reads the audit log back: one entry per change
// with the right actor, none for refused writes (400, 403), the page (full
// and as an htmx fragment, filtered, empty, forbidden), the "last changed
// by" line of the job page, the API with its cursor and a 400 naming a bad
// parameter; the job's password appears nowhere.
func TestAuditLogOfAPIAndPageWrites(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "correct horse battery")
	a.signIn("ada", "correct horse battery")

	r := a.get("/w/default/audit")
	wantStatus(t, r, http.StatusOK)
	if a.doc(r, "#audit-empty") == "" || r.doc.Find("#audit-filter").Length() != 1 {
		t.Fatalf("the empty audit page has no empty message or no filter:\n%s", r.body)
	}

	_, tok, err := a.store.CreateToken(ctx, ada.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	a.token = tok
	jc := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, jc+apiVersion, `{"properties": {"sku": {"name": "Standard"}}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, jc+"/jobs/daily"+apiVersion, auditJob), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, jc+"/jobs/bad"+apiVersion, `{"properties": {"action": 5}}`), http.StatusBadRequest)

	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.SetMemberRole(ctx, models.DefaultWorkspaceID, bob.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	_, bobTok, err := a.store.CreateToken(ctx, bob.ID, "bob's")
	if err != nil {
		t.Fatal(err)
	}
	a.token = bobTok
	wantStatus(t, a.api(http.MethodPut, jc+"/jobs/daily"+apiVersion, auditJob), http.StatusForbidden)
	a.token = tok

	jobPage := "/c/default/rg/jc/jobs/daily"
	csrf := a.csrf(jobPage)
	wantRedirect(t, a.post(jobPage+"/disable", url.Values{"csrf_token": {csrf}}), jobPage)

	r = a.get("/w/default/audit")
	wantStatus(t, r, http.StatusOK)
	items := r.doc.Find("#audit-list > li")
	if items.Length() != 3 {
		t.Fatalf("%d entries on the page, want 3 (collection, job, disable):\n%s", items.Length(), r.body)
	}
	wantEntry := func(i int, actor, action string) {
		t.Helper()
		li := items.Eq(i)
		if got := strings.TrimSpace(li.Find(".audit-actor").Text()); got != actor {
			t.Errorf("entry %d by %q, want %q", i, got, actor)
		}
		if got := strings.TrimSpace(li.Find(".audit-action").Text()); got != action {
			t.Errorf("entry %d action %q, want %q", i, got, action)
		}
	}
	wantEntry(0, "ada", "job.disable")
	wantEntry(1, "ada with token ci", "job.put")
	wantEntry(2, "ada with token ci", "collection.put")
	if !strings.Contains(items.Eq(1).Find(".audit-changes").Text(), "action.request.authentication.password") {
		t.Errorf("the job's creation does not list the password's (masked) change:\n%s", r.body)
	}
	if strings.Contains(r.body, "hunter2") {
		t.Error("the audit page shows the job's password")
	}

	r = a.do(a.client, http.MethodGet, "/w/default/audit?actor=ada&action=job&resource="+url.QueryEscape(models.AuditJobResource("rg", "jc", "daily")),
		nil, http.Header{"Hx-Request": {"true"}})
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "<html") || r.doc.Find("#audit-results").Length() != 1 || r.doc.Find("#audit-list > li").Length() != 2 {
		t.Errorf("the htmx filter answer is not the fragment with the job's 2 entries:\n%s", r.body)
	}
	r = a.get("/w/default/audit?actor=nobody")
	if a.doc(r, "#audit-empty") != "No change matches this filter." {
		t.Errorf("a filter matching nothing:\n%s", r.body)
	}
	wantStatus(t, a.get("/w/default/audit?since=yesterday"), http.StatusBadRequest)

	r = a.get(jobPage)
	link := r.doc.Find("#last-changed a")
	if href, _ := link.Attr("href"); !strings.HasPrefix(strings.TrimSpace(link.Text()), "Last changed by ada") ||
		href != "/w/default/audit?resource="+url.QueryEscape(models.AuditJobResource("rg", "jc", "daily")) {
		t.Errorf("the job page's last change %q → %q", link.Text(), href)
	}
	r = a.get("/c/default/rg/jc")
	if got := strings.TrimSpace(r.doc.Find("#last-changed a").Text()); !strings.HasPrefix(got, "Last changed by ada with token ci") {
		t.Errorf("the collection page's last change %q", got)
	}

	type entry struct {
		Action string `json:"action"`
		Actor  struct {
			Kind  string `json:"kind"`
			Name  string `json:"name"`
			Token string `json:"token"`
		} `json:"actor"`
		Via string `json:"via"`
	}
	type list struct {
		Value    []entry `json:"value"`
		NextLink string  `json:"nextLink"`
	}
	r = a.api(http.MethodGet, "/api/v1/workspaces/default/audit?$top=2", "")
	wantStatus(t, r, http.StatusOK)
	first := decode[list](t, r)
	if len(first.Value) != 2 || first.NextLink == "" || first.Value[1].Actor.Token != "ci" || first.Value[1].Actor.Kind != "token" ||
		first.Value[1].Via != "api" {
		t.Fatalf("first page %+v", first)
	}
	next, err := url.Parse(first.NextLink)
	if err != nil {
		t.Fatal(err)
	}
	r = a.api(http.MethodGet, next.RequestURI(), "")
	wantStatus(t, r, http.StatusOK)
	if second := decode[list](t, r); len(second.Value) != 1 || second.Value[0].Action != "collection.put" || second.NextLink != "" {
		t.Errorf("second page %+v", second)
	}
	r = a.api(http.MethodGet, "/api/v1/workspaces/default/audit?until=soon", "")
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, `"until"`) || !strings.Contains(r.body, `"error"`) {
		t.Errorf("a bad until: %s", r.body)
	}
	r = a.api(http.MethodGet, "/api/v1/workspaces/default/audit?action=job.steal", "")
	wantStatus(t, r, http.StatusBadRequest)
	if strings.Contains(r.body, "hunter2") {
		t.Error("the audit API shows the job's password")
	}

	// Someone who is not a member reads nothing.
	eve, err := a.store.CreateUser(ctx, models.NewUser{Username: "eve", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.CreateWorkspace(ctx, "team", "Team", ada.ID); err != nil {
		t.Fatal(err)
	}
	_, eveTok, err := a.store.CreateToken(ctx, eve.ID, "eve's")
	if err != nil {
		t.Fatal(err)
	}
	a.token = eveTok
	if r := a.api(http.MethodGet, "/api/v1/workspaces/team/audit", ""); r.StatusCode != http.StatusForbidden {
		t.Errorf("a non-member's API read: %d %s", r.StatusCode, r.body)
	}
	eveClient := newClient()
	tokEve := a.csrfWith(eveClient, "/signin")
	wantRedirect(t, a.do(eveClient, http.MethodPost, "/signin", url.Values{"csrf_token": {tokEve}, "username": {"eve"},
		"password": {"correct horse battery"}}, nil), "/")
	if r := a.do(eveClient, http.MethodGet, "/w/team/audit", nil, nil); r.StatusCode != http.StatusForbidden && r.StatusCode != http.StatusNotFound ||
		r.doc.Find("#audit-list").Length() != 0 {
		t.Errorf("a non-member's page: %d", r.StatusCode)
	}

	// Sign-ins and sign-outs are recorded outside any workspace; a failed
	// sign-in is not.
	tokFail := a.csrfWith(newClient(), "/signin")
	a.do(newClient(), http.MethodPost, "/signin", url.Values{"csrf_token": {tokFail}, "username": {"eve"}, "password": {"wrong horse"}}, nil)
	tokOut := a.csrfWith(eveClient, "/account")
	wantRedirect(t, a.do(eveClient, http.MethodPost, "/signout", url.Values{"csrf_token": {tokOut}}, nil), "/signin")
	var ins, outs int
	err = openDB(t, a).QueryRow(`SELECT count(*) FILTER (WHERE action = 'signin'), count(*) FILTER (WHERE action = 'signout')
		FROM audit_entries WHERE actor_name = 'eve' AND workspace_id IS NULL AND resource = 'users/eve'`).Scan(&ins, &outs)
	if err != nil || ins != 1 || outs != 1 {
		t.Errorf("eve's sign-ins %d, sign-outs %d (%v); want 1 and 1", ins, outs, err)
	}
}

// doc returns the trimmed text of the first element sel matches in r.
func (a *app) doc(r *response, sel string) string {
	return strings.TrimSpace(r.doc.Find(sel).First().Text())
}
