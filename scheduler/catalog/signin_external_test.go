package catalog_test

import (
	"context"
	"fmt"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestSignInExternalIsAudited checks that the first OpenID Connect
// sign-in of a person audits the user it creates, the membership the
// role map grants and the sign-in, each by that user at the request's
// address, and passes each to the change hook; that a later sign-in
// audits only itself; and that one that makes the user an administrator
// says so.
func TestSignInExternalIsAudited(t *testing.T) {
	e := newEnv(t)
	var got []hooked
	catalog.SetOnChange(e.cat, func(_ context.Context, a catalog.Actor, ch catalog.Change) { got = append(got, hooked{a, ch}) })
	request := catalog.Actor{Addr: "192.0.2.7", Via: catalog.ViaWeb}
	in := models.ExternalSignIn{Issuer: "https://id.example.com", Subject: "s-1", Email: "ada@example.com",
		Workspaces: []string{models.DefaultWorkspaceID}, Roles: map[string]string{models.DefaultWorkspaceID: "operator"}, Now: testNow}
	since := e.lastAuditID()
	res, err := e.cat.SignInExternal(e.ctx, request, in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.User.Username != "ada@example.com" {
		t.Fatalf("first sign-in: %+v", res)
	}
	user := catalog.Actor{UserID: res.User.ID, UserName: res.User.Username, Addr: request.Addr, Via: request.Via}
	rows := e.auditSince(since)
	want := []string{"user.create  users/ada@example.com", "member.put default members/ada@example.com operator", "signin  users/ada@example.com"}
	if len(rows) != len(want) {
		t.Fatalf("first sign-in left %d entries, want %d: %+v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		line := fmt.Sprintf("%s %s %s", r.Action, r.Workspace, r.Resource)
		if r.Action == "member.put" {
			line += " " + r.Detail
		}
		if line != want[i] {
			t.Errorf("entry %d: %q, want %q", i, line, want[i])
		}
		if r.Kind != string(models.ActorUser) || r.UserID != user.UserID || r.Name != user.UserName || r.Addr != user.Addr || r.Via != user.Via {
			t.Errorf("entry %d's actor: %+v, want %+v", i, r, user)
		}
	}
	if len(got) != 3 || got[0].actor != user || got[1].change.Op != catalog.OpPutMember {
		t.Errorf("the hook got %+v", got)
	}

	since, got = e.lastAuditID(), nil
	in.Admin = true
	if _, err := e.cat.SignInExternal(e.ctx, request, in); err != nil {
		t.Fatal(err)
	}
	rows = e.auditSince(since)
	if len(rows) != 1 || rows[0].Action != "signin" || rows[0].Detail != catalog.ViaOIDC+": made an administrator by the role map" {
		t.Errorf("a sign-in that grants the administrator role left %+v", rows)
	}
	since = e.lastAuditID()
	if _, err := e.cat.SignInExternal(e.ctx, request, in); err != nil {
		t.Fatal(err)
	}
	if rows = e.auditSince(since); len(rows) != 1 || rows[0].Action != "signin" || rows[0].Detail != catalog.ViaOIDC {
		t.Errorf("a later sign-in left %+v", rows)
	}
}
