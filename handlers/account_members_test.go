package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"sked/models"
)

func TestMembersPage(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "password123")
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	carol, err := a.store.CreateUser(ctx, models.NewUser{Username: "carol", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	const path = "/workspaces/default/members"
	adaID, bobID, carolID := strconv.FormatInt(ada.ID, 10), strconv.FormatInt(bob.ID, 10), strconv.FormatInt(carol.ID, 10)

	// A plain member sees the list, without the controls, and may not
	// change it.
	b := a.acctSignIn("bob", "password123")
	r := b.get(path)
	wantStatus(t, r, http.StatusOK)
	if n := r.doc.Find("#member-list > li").Length(); n != 3 {
		t.Errorf("bob sees %d members, want 3", n)
	}
	if r.doc.Find("#member-form").Length() != 0 || r.doc.Find("#member-list button").Length() != 0 {
		t.Error("a plain member sees the add form or remove buttons")
	}
	if !hasBadge(r.doc.Find("#member-"+adaID), "Owner") || !hasBadge(r.doc.Find("#member-"+bobID), "Editor") {
		t.Errorf("role badges: ada %v, bob %v", badgeTexts(r.doc.Find("#member-"+adaID)), badgeTexts(r.doc.Find("#member-"+bobID)))
	}
	wantStatus(t, b.hx(path, url.Values{"username": {"carol"}, "role": {"owner"}}), http.StatusForbidden)
	wantStatus(t, b.hx(path+"/"+carolID+"/remove", nil), http.StatusForbidden)
	if role, _, _ := a.store.MemberRole(ctx, "default", carol.ID); role != models.RoleMember {
		t.Fatalf("a plain member changed carol's membership (%q)", role)
	}
	// Other workspaces (existing or not) are not for non-members.
	wantStatus(t, b.get("/workspaces/elsewhere/members"), http.StatusForbidden)

	u := a.acctSignIn("ada", "password123")
	r = u.get("/workspaces/DEFAULT/members") // ids are case-insensitive, as in the API
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("h1").Text(); got != "Members of default" {
		t.Errorf("h1 %q", got)
	}
	wantLabels(t, r.doc, "member-username", "member-role")
	wantAllLabelled(t, r.doc)
	if r.doc.Find("#member-"+adaID+" button").Length() != 0 || !strings.Contains(r.doc.Find("#member-"+adaID).Text(), "last owner") {
		t.Error("the last owner can be removed, or the page does not say why not")
	}

	// Removing the last owner is refused with a clear error.
	r = u.hx(path+"/"+adaID+"/remove", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "members")
	if got := r.doc.Find("#members-error").Text(); !strings.Contains(got, "ada is the last owner of default") {
		t.Errorf("last owner error %q", got)
	}

	// Wrong CSRF: refused, nothing removed.
	wantStatus(t, a.do(u.client, http.MethodPost, path+"/"+carolID+"/remove", url.Values{"csrf_token": {"x"}}, nil), http.StatusForbidden)
	if _, ok, _ := a.store.MemberRole(ctx, "default", carol.ID); !ok {
		t.Fatal("a remove with a wrong CSRF token removed carol")
	}

	// Add errors.
	for _, tc := range []struct{ username, role, field, want string }{
		{"", "member", "member-username", "The user name is required."},
		{"nobody", "member", "member-username", `"nobody" is not a user of Sked.`},
		{"Carol", "member", "member-username", "carol is already a member."},
		{"carol", "boss", "member-role", "The role must be reader, operator, editor or owner."},
	} {
		r = u.hx(path, url.Values{"username": {tc.username}, "role": {tc.role}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		wantFragment(t, r, "members")
		if got := r.doc.Find("#" + tc.field + "-error").Text(); got != tc.want {
			t.Errorf("add %q as %q: #%s-error %q, want %q", tc.username, tc.role, tc.field, got, tc.want)
		}
	}

	// Remove carol, add her back as owner (plain form post: whole page).
	r = u.hx(path+"/"+carolID+"/remove", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#member-"+carolID).Length() != 0 || r.doc.Find("#members-message").Text() != "carol removed from default." {
		t.Errorf("after removing carol: message %q", r.doc.Find("#members-message").Text())
	}
	r = u.post(path, url.Values{"username": {"carol"}, "role": {"owner"}})
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("nav").Length() != 1 || !hasBadge(r.doc.Find("#member-"+carolID), "Owner") {
		t.Errorf("carol added as owner: badges %v", badgeTexts(r.doc.Find("#member-"+carolID)))
	}
	if r.doc.Find("#remove-"+adaID).Length() != 1 {
		t.Error("with two owners, ada can still not be removed")
	}

	// Carol (an owner, not an administrator) can manage; ada removing
	// herself goes to the dashboard and loses the page.
	c := a.acctSignIn("carol", "password123")
	if r := c.get(path); r.doc.Find("#member-form").Length() != 1 {
		t.Error("an owner does not get the add form")
	}
	r = u.hx(path+"/"+adaID+"/remove", nil)
	wantStatus(t, r, http.StatusOK)
	if got := r.Header.Get("HX-Redirect"); got != "/" {
		t.Errorf("removing oneself: HX-Redirect %q, want /", got)
	}
	wantStatus(t, u.get(path), http.StatusForbidden)
}
