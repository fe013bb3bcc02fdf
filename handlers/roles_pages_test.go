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
	"sked/models/jobdef"
)

// TestPagesShowOnlyAllowedControls opens a job and its collection as a
// reader, an operator and an editor: readers see no buttons that change
// anything, operators run, enable and disable, editors also edit and
// delete. A reader's POST gets a 403 page naming the role needed.
func TestPagesShowOnlyAllowedControls(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "correct horse battery")
	a.token = tokenOf(t, a, ada.ID)
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/jc"+apiVersion, `{"location":"westeurope","properties":{"sku":{"name":"Standard"},"state":"Enabled"}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/jc/jobs/j"+apiVersion, basicJob), http.StatusCreated)
	for _, tc := range []struct {
		role                      models.Role
		run, edit, delete, enable bool
	}{
		{models.RoleReader, false, false, false, false},
		{models.RoleOperator, true, false, false, true},
		{models.RoleEditor, true, true, true, true},
	} {
		name := "u-" + string(tc.role)
		u, err := a.store.CreateUser(ctx, models.NewUser{Username: name, Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.store.SetMemberRole(ctx, "default", u.ID, tc.role); err != nil {
			t.Fatal(err)
		}
		a.client = newClient()
		a.signIn(name, "correct horse battery")
		r := a.get("/c/default/rg/jc/jobs/j")
		wantStatus(t, r, http.StatusOK)
		has := func(sel string) bool { return r.doc.Find(sel).Length() > 0 }
		if has("#job-run") != tc.run || has(`a[href$="/edit"]`) != tc.edit || has("#job-delete") != tc.delete || has("#job-disable") != tc.enable {
			t.Errorf("%s: run %v edit %v delete %v disable %v", tc.role, has("#job-run"), has(`a[href$="/edit"]`), has("#job-delete"), has("#job-disable"))
		}
		r = a.get("/c/default/rg/jc")
		if has := r.doc.Find("#collection-disable").Length() > 0; has != tc.run {
			t.Errorf("%s: collection disable shown %v", tc.role, has)
		}
		if tc.role == models.RoleReader {
			tok := a.csrf("/c/default/rg/jc/jobs/j")
			r = a.post("/c/default/rg/jc/jobs/j/run", url.Values{"csrf_token": {tok}})
			wantStatus(t, r, http.StatusForbidden)
			if !strings.Contains(r.doc.Find("#error").Text(), "This needs the operator role in workspace default (you have reader).") {
				t.Errorf("403 page: %s", r.doc.Find("#error").Text())
			}
		}
	}
}

// TestPagesRefuseAnotherWorkspace opens the pages of a workspace the user
// is not a member of (running now, audit log, channels, a job, an
// execution, the all-jobs list filtered on it): every one is refused with
// an error page and shows none of its jobs; a bulk action on its job
// changes nothing.
func TestPagesRefuseAnotherWorkspace(t *testing.T) {
	f := newPGFixture(t)
	other := f.otherWorkspace()
	x, err := f.store.JobDetail(t.Context(), other.ID, "x")
	if err != nil {
		t.Fatal(err)
	}
	e := f.addHistory(x.ID, f.clock.Now().Add(-time.Hour), models.StatusFailed, models.MainAction, 0, "HTTP 500")
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/w/other/running", http.StatusNotFound},
		{"/w/other/audit", http.StatusNotFound},
		{"/w/other/channels", http.StatusNotFound},
		{"/c/other/rg/theirs/jobs/x", http.StatusNotFound},
		{fmt.Sprintf("/c/other/rg/theirs/jobs/x/history/%d", e.ID), http.StatusNotFound},
		{"/jobs?ws=other", http.StatusBadRequest},
	} {
		r := f.get(tc.path)
		pgWantErrorPage(t, r, tc.status)
		if r.doc.Find(`[data-job="x"], #job-trends, #execution-request`).Length() != 0 {
			t.Errorf("%s shows the other workspace's job", tc.path)
		}
	}
	before := f.fingerprint()
	r := f.formPost("/jobs/bulk", url.Values{"action": {"disable"}, "id": {fmt.Sprint(x.ID)}, "note": {"mine now"}})
	if r.StatusCode < 400 || r.StatusCode >= 500 {
		t.Errorf("a bulk disable of another workspace's job answered %d", r.StatusCode)
	}
	if f.fingerprint() != before {
		t.Error("a bulk disable of another workspace's job changed it")
	}
	if got, _ := f.store.JobDetail(t.Context(), other.ID, "x"); got.State != jobdef.Enabled {
		t.Errorf("the other workspace's job is %s", got.State)
	}
}
