package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"sked/models"
)

func TestUsersPage(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "password123")
	if _, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"}); err != nil {
		t.Fatal(err)
	}

	// Not for non-administrators, not even with a valid CSRF token.
	b := a.acctSignIn("bob", "password123")
	r := b.get("/users")
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.doc.Find("#error").Text(), "Only administrators") {
		t.Errorf("403 page says %q", r.doc.Find("#error").Text())
	}
	wantStatus(t, b.post("/users", url.Values{"username": {"eve"}, "password": {"password123"}, "confirm": {"password123"}, "admin": {"on"}}), http.StatusForbidden)
	wantStatus(t, b.hx("/users/"+strconv.FormatInt(ada.ID, 10)+"/disable", nil), http.StatusForbidden)
	if _, err := a.store.UserByName(ctx, "eve"); !errors.Is(err, models.ErrNotFound) {
		t.Fatal("a non-administrator added a user")
	}
	wantRedirect(t, a.get("/users"), "/signin?next=%2Fusers")

	u := a.acctSignIn("ada", "password123")
	r = u.get("/users")
	wantStatus(t, r, http.StatusOK)
	wantLabels(t, r.doc, "username", "password", "confirm", "admin", "password-"+strconv.FormatInt(ada.ID, 10))
	wantAllLabelled(t, r.doc)
	self := r.doc.Find("#user-" + strconv.FormatInt(ada.ID, 10))
	if !hasBadge(self, "Administrator") || !hasBadge(self, "Active") {
		t.Errorf("ada's badges: %v", badgeTexts(self))
	}
	if self.Find(`form[action$="/disable"]`).Length() != 0 {
		t.Error("the administrator's own row offers to disable the account")
	}
	if r.doc.Find(`li[data-username="bob"] form[action$="/disable"] button`).Length() != 1 {
		t.Error("bob's row has no disable button")
	}

	// Wrong CSRF token: refused, nothing created.
	r = a.do(u.client, http.MethodPost, "/users", url.Values{"csrf_token": {"nope"}, "username": {"carol"}, "password": {"password123"}, "confirm": {"password123"}}, nil)
	wantStatus(t, r, http.StatusForbidden)
	if _, err := a.store.UserByName(ctx, "carol"); !errors.Is(err, models.ErrNotFound) {
		t.Fatal("a post with a wrong CSRF token added a user")
	}

	// Invalid input: the section comes back with every error in place.
	r = u.hx("/users", url.Values{"username": {"bad name"}, "password": {"short"}, "confirm": {"other"}, "admin": {"on"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "users")
	for id, msg := range map[string]string{
		"username": "User name must be 1 to 64 letters",
		"password": "Password must be at least 8 characters",
		"confirm":  "The repeated password does not match.",
	} {
		if got := r.doc.Find("#" + id + "-error").Text(); !strings.Contains(got, msg) {
			t.Errorf("#%s-error = %q, want %q", id, got, msg)
		}
	}
	if v, _ := r.doc.Find("#username").Attr("value"); v != "bad name" {
		t.Errorf("user name not kept: %q", v)
	}
	if _, checked := r.doc.Find("#admin").Attr("checked"); !checked {
		t.Error("the administrator box was not kept")
	}
	if strings.Contains(r.body, "short") {
		t.Error("the password was echoed back")
	}
	r = u.hx("/users", url.Values{"username": {"BOB"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#username-error").Text(); got != "User name is already taken." {
		t.Errorf("duplicate name: %q", got)
	}

	// Valid: added, listed, can sign in.
	r = u.hx("/users", url.Values{"username": {"carol"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusOK)
	wantFragment(t, r, "users")
	if got := r.doc.Find("#users-message").Text(); got != "User carol added." {
		t.Errorf("message %q", got)
	}
	if v, _ := r.doc.Find("#username").Attr("value"); v != "" {
		t.Errorf("the form was not cleared after adding: %q", v)
	}
	carolRow := r.doc.Find(`li[data-username="carol"]`)
	if !hasBadge(carolRow, "Active") || hasBadge(carolRow, "Administrator") {
		t.Errorf("carol's badges: %v", badgeTexts(carolRow))
	}
	carol, err := a.store.UserByName(ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	cid := strconv.FormatInt(carol.ID, 10)
	c := a.acctSignIn("carol", "password123")
	_, _, err = a.store.CreateToken(ctx, carol.ID, "x")
	if err != nil {
		t.Fatal(err)
	}

	// An administrator cannot disable themself.
	r = u.hx("/users/"+strconv.FormatInt(ada.ID, 10)+"/disable", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "users")
	if got := r.doc.Find("#user-" + strconv.FormatInt(ada.ID, 10) + "-error").Text(); !strings.Contains(got, "You cannot disable your own account") {
		t.Errorf("self-disable error %q", got)
	}
	if me, _ := a.store.UserByID(ctx, ada.ID); me.Disabled {
		t.Fatal("the administrator disabled themself")
	}

	// Disable carol: badge, enable button; her session ends.
	wantStatus(t, a.do(u.client, http.MethodPost, "/users/"+cid+"/disable", url.Values{}, nil), http.StatusForbidden)
	if got, _ := a.store.UserByID(ctx, carol.ID); got.Disabled {
		t.Fatal("a disable without CSRF token disabled the user")
	}
	r = u.hx("/users/"+cid+"/disable", nil)
	wantStatus(t, r, http.StatusOK)
	carolRow = r.doc.Find("#user-" + cid)
	if !hasBadge(carolRow, "Disabled") || carolRow.Find("#enable-"+cid).Length() != 1 {
		t.Errorf("disabled carol: badges %v", badgeTexts(carolRow))
	}
	if !strings.Contains(r.doc.Find("#users-message").Text(), "carol disabled") {
		t.Errorf("message %q", r.doc.Find("#users-message").Text())
	}
	wantRedirect(t, c.get("/tokens"), "/signin?next=%2Ftokens")
	if _, err := a.store.Authenticate(ctx, "carol", "password123"); !errors.Is(err, models.ErrUserDisabled) {
		t.Errorf("disabled carol authenticates: %v", err)
	}
	r = u.post("/users/"+cid+"/enable", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("nav").Length() != 1 || !hasBadge(r.doc.Find("#user-"+cid), "Active") {
		t.Error("enable without htmx did not render the page with carol active")
	}

	// Reset carol's password.
	r = u.hx("/users/"+cid+"/password", url.Values{"password": {"short"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#password-" + cid + "-error").Text(); got != "Password must be at least 8 characters." {
		t.Errorf("reset error %q", got)
	}
	r = u.hx("/users/"+cid+"/password", url.Values{"password": {"brand new pass"}})
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#users-message").Text(); got != "Password of carol reset." {
		t.Errorf("message %q", got)
	}
	if _, err := a.store.Authenticate(ctx, "carol", "brand new pass"); err != nil {
		t.Errorf("carol cannot sign in with the new password: %v", err)
	}

	// Unknown users.
	wantStatus(t, u.hx("/users/999999/disable", nil), http.StatusNotFound)
	wantStatus(t, u.hx("/users/999999/password", url.Values{"password": {"password123"}}), http.StatusNotFound)
	wantStatus(t, u.hx("/users/x/enable", nil), http.StatusNotFound)
}
