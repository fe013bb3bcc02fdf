package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestZeroActorHasNoRights checks that a caller that forgets to say who
// acts (the zero Actor) may change nothing, while Sked itself (System)
// and the command line are trusted as owner.
func TestZeroActorHasNoRights(t *testing.T) {
	e := newEnv(t)
	var fe *catalog.ForbiddenError
	if _, _, err := e.cat.PutCollection(e.ctx, catalog.Actor{}, ref("rg", "jc"), []byte(`{}`)); !errors.As(err, &fe) {
		t.Fatalf("the zero actor put a collection: %v", err)
	}
	if role, err := e.cat.RoleOf(e.ctx, catalog.Actor{Via: catalog.ViaWeb, Addr: "192.0.2.1"}, models.DefaultWorkspaceID); err != nil || role != "" {
		t.Errorf("an actor without a user at a page has role %q (%v), want none", role, err)
	}
	for _, a := range []catalog.Actor{catalog.System("setup"), {Via: catalog.ViaCLI, UserName: "root"}} {
		if role, err := e.cat.RoleOf(e.ctx, a, models.DefaultWorkspaceID); err != nil || role != models.RoleOwner {
			t.Errorf("%+v has role %q (%v), want owner", a, role, err)
		}
	}
	if _, _, err := e.cat.PutCollection(e.ctx, catalog.System("setup"), ref("rg", "jc"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	var kind, name string
	if err := e.db.QueryRow(`SELECT actor_kind, actor_name FROM audit_entries ORDER BY id DESC LIMIT 1`).Scan(&kind, &name); err != nil {
		t.Fatal(err)
	}
	if kind != string(models.ActorSystem) || name != "setup" {
		t.Errorf("a system actor's change is audited as %s %q, want system \"setup\"", kind, name)
	}
}

// TestRoleMemoKeepsARequestsRoles checks an actor's RoleMemo: the role
// RoleOf found is what the rest of the request sees, also after someone
// else changed it, until a write of the catalog empties the memo.
func TestRoleMemoKeepsARequestsRoles(t *testing.T) {
	e := newEnv(t)
	sys := catalog.System("test")
	bob, err := e.cat.CreateUser(e.ctx, sys, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	ws := models.DefaultWorkspaceID
	if _, _, err := e.cat.PutMember(e.ctx, sys, true, ws, "bob", models.RoleEditor); err != nil {
		t.Fatal(err)
	}
	a := catalog.Actor{UserID: bob.ID, UserName: "bob", Via: catalog.ViaWeb, Roles: &catalog.RoleMemo{}}
	if role, err := e.cat.RoleOf(e.ctx, a, ws); err != nil || role != models.RoleEditor {
		t.Fatalf("bob's role = %q, %v; want editor", role, err)
	}
	if _, _, err := e.cat.PutMember(e.ctx, sys, true, ws, "bob", models.RoleReader); err != nil {
		t.Fatal(err)
	}
	if role, err := e.cat.RoleOf(e.ctx, a, strings.ToUpper(ws)); err != nil || role != models.RoleEditor {
		t.Errorf("bob's role within the request = %q, %v; want editor (remembered)", role, err)
	}
	if role, err := e.cat.RoleOf(e.ctx, catalog.Actor{UserID: bob.ID, Via: catalog.ViaWeb}, ws); err != nil || role != models.RoleReader {
		t.Errorf("bob's role without a memo = %q, %v; want reader", role, err)
	}
	if _, _, err := e.cat.PutCollection(e.ctx, a, ref("rg", "jc"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if role, err := e.cat.RoleOf(e.ctx, a, ws); err != nil || role != models.RoleReader {
		t.Errorf("bob's role after a write of the request = %q, %v; want reader (read again)", role, err)
	}
}
