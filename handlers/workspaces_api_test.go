package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/handlers"
	"sked/models"
)

// TestScopedTokens checks the scope of API tokens: another workspace is
// 403, an expired token 401, and a reader token of an owner cannot write.
func TestScopedTokens(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "correct horse battery")
	if _, err := a.store.CreateWorkspace(ctx, "team", "Team", ada.ID); err != nil {
		t.Fatal(err)
	}
	issue := func(sc models.TokenScope) string {
		_, secret, err := a.store.CreateScopedToken(ctx, ada.ID, "t", sc)
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	coll := `{"location":"westeurope","properties":{"sku":{"name":"Standard"},"state":"Enabled"}}`

	a.token = issue(models.TokenScope{Role: models.RoleOwner, Workspaces: []string{"team"}})
	wantStatus(t, a.api(http.MethodGet, "/subscriptions/team/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections"+apiVersion, ""), http.StatusOK)
	before := a.fingerprint()
	r := a.api(http.MethodPut, rgPath("rg")+"/jc"+apiVersion, coll)
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(decode[apiErr](t, r).Error.Message, "does not cover workspace default") || a.fingerprint() != before {
		t.Errorf("out of scope: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodGet, "/api/v1/workspaces/default/calendars", ""), http.StatusForbidden)

	a.token = issue(models.TokenScope{Role: models.RoleReader})
	wantStatus(t, a.api(http.MethodGet, rgPath("rg")+apiVersion, ""), http.StatusOK)
	r = a.api(http.MethodPut, rgPath("rg")+"/jc"+apiVersion, coll)
	wantStatus(t, r, http.StatusForbidden)
	if msg := decode[apiErr](t, r).Error.Message; !strings.Contains(msg, "needs the editor role in workspace default") || a.fingerprint() != before {
		t.Errorf("reader token of an owner: %q", msg)
	}

	a.token = issue(models.TokenScope{Role: models.RoleOwner, ExpiresAt: time.Now().Add(time.Hour)})
	wantStatus(t, a.api(http.MethodGet, rgPath("rg")+apiVersion, ""), http.StatusOK)
	db := openDB(t, a)
	if _, err := db.Exec(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE expires_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.api(http.MethodGet, rgPath("rg")+apiVersion, ""), http.StatusUnauthorized)

	// A token never gains rights: an owner token of a user demoted to
	// reader only reads.
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	_, a.token, err = a.store.CreateScopedToken(ctx, bob.ID, "b", models.TokenScope{Role: models.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.SetMemberRole(ctx, "default", bob.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/jc"+apiVersion, coll), http.StatusForbidden)
}

// TestWorkspacesAPI creates, reads, renames and deletes a workspace and
// its members through /api/v1/workspaces, with the last-owner rule.
func TestWorkspacesAPI(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "correct horse battery")
	a.token = tokenOf(t, a, ada.ID)
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}

	r := a.api(http.MethodPut, "/api/v1/workspaces/team-a", `{"displayName": "Team A"}`)
	wantStatus(t, r, http.StatusCreated)
	if ws := decode[map[string]any](t, r); ws["displayName"] != "Team A" || ws["role"] != "owner" {
		t.Errorf("created %v", ws)
	}
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/TEAM-A", `{"displayName": "Team A!"}`), http.StatusOK)
	wantStatus(t, a.api(http.MethodPatch, "/api/v1/workspaces/team-a", `{"displayName": "The A team"}`), http.StatusOK)
	if ws := decode[map[string]any](t, a.api(http.MethodGet, "/api/v1/workspaces/team-a", "")); ws["displayName"] != "The A team" {
		t.Errorf("renamed %v", ws)
	}

	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/team-a/members/bob", `{"role": "reader"}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/team-a/members/bob", `{"role": "editor"}`), http.StatusOK)
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/team-a/members/bob", `{"role": "king"}`), http.StatusBadRequest)
	ms := decode[struct{ Value []map[string]string }](t, a.api(http.MethodGet, "/api/v1/workspaces/team-a/members", ""))
	if len(ms.Value) != 2 || ms.Value[1]["username"] != "bob" || ms.Value[1]["role"] != "editor" {
		t.Errorf("members %v", ms.Value)
	}
	// The last owner can be neither demoted nor removed.
	r = a.api(http.MethodPut, "/api/v1/workspaces/team-a/members/ada", `{"role": "editor"}`)
	wantStatus(t, r, http.StatusConflict)
	wantStatus(t, a.api(http.MethodDelete, "/api/v1/workspaces/team-a/members/ada", ""), http.StatusConflict)

	// bob, an editor, may neither rename nor manage members.
	_, bobToken, err := a.store.CreateScopedToken(ctx, bob.ID, "b", models.TokenScope{})
	if err != nil {
		t.Fatal(err)
	}
	owner := a.token
	a.token = bobToken
	wantStatus(t, a.api(http.MethodPatch, "/api/v1/workspaces/team-a", `{"displayName": "mine"}`), http.StatusForbidden)
	wantStatus(t, a.api(http.MethodDelete, "/api/v1/workspaces/team-a/members/ada", ""), http.StatusForbidden)
	// Nor create workspaces without --open-workspaces.
	r = a.api(http.MethodPut, "/api/v1/workspaces/bobs", `{}`)
	wantStatus(t, r, http.StatusForbidden)
	a.token = owner

	// A workspace that holds something is not deleted: 409 naming it.
	wantStatus(t, a.api(http.MethodPut, "/subscriptions/team-a/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc"+apiVersion,
		`{"location":"westeurope","properties":{"sku":{"name":"Standard"},"state":"Enabled"}}`), http.StatusCreated)
	r = a.api(http.MethodDelete, "/api/v1/workspaces/team-a", "")
	wantStatus(t, r, http.StatusConflict)
	if msg := decode[apiErr](t, r).Error.Message; !strings.Contains(msg, "1 collection") {
		t.Errorf("409 says %q", msg)
	}
	wantStatus(t, a.api(http.MethodDelete, "/subscriptions/team-a/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc"+apiVersion, ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodDelete, "/api/v1/workspaces/team-a", ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodGet, "/api/v1/workspaces/team-a", ""), http.StatusForbidden)
}

// TestOpenWorkspaces lets every user create a workspace, becoming its
// owner.
func TestOpenWorkspaces(t *testing.T) {
	a := newApp(t, false, func(d *handlers.Deps) { d.OpenWorkspaces = true })
	ctx := context.Background()
	a.setupAdmin("ada", "correct horse battery")
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	a.token = tokenOf(t, a, bob.ID)
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/bobs", `{}`), http.StatusCreated)
	if role, _ := a.store.RoleIn(ctx, "bobs", bob.ID); role != models.RoleOwner {
		t.Errorf("bob is %q of his workspace", role)
	}
}
