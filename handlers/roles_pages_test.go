package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
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
