package models_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestSignInExternal checks that the first sign-in of an identity creates
// a user without a password, the next finds it (whatever its email now
// is), grants only add, unknown workspaces are skipped, taken names get a
// number, and a disabled user is refused.
func TestSignInExternal(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "ada@example.com", Password: "password123"}); err != nil {
		t.Fatal(err)
	}

	in := models.ExternalSignIn{
		Issuer: "https://id.example.com", Subject: "s-1", Email: "ada@example.com", PreferredName: "ada",
		Admin: true, Workspaces: []string{"default", "nowhere"}, Now: now,
	}
	first, err := store.SignInExternal(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	u := first.User
	if !first.Created || u.Username != "ada" || !u.IsAdmin || u.PasswordHash != "" || !slices.Equal(first.Skipped, []string{"nowhere"}) {
		t.Errorf("first sign-in = %+v, user %+v; want a new administrator named ada (the email is taken)", first, u)
	}
	if role, ok, err := store.MemberRole(ctx, "default", u.ID); err != nil || !ok || role != models.RoleMember {
		t.Errorf("default membership = %q %v %v", role, ok, err)
	}
	if _, err := store.Authenticate(ctx, "ada", ""); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("empty password: %v", err)
	}

	// The same person again, with another email and no grants: the same
	// user, still an administrator and a member.
	again, err := store.SignInExternal(ctx, models.ExternalSignIn{Issuer: in.Issuer, Subject: "s-1", Email: "ada@example.org", Now: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.User.ID != u.ID || !again.User.IsAdmin {
		t.Errorf("second sign-in = %+v, user %+v", again, again.User)
	}
	if _, ok, _ := store.MemberRole(ctx, "default", u.ID); !ok {
		t.Error("the second sign-in took the membership away")
	}
	ids, err := store.IdentitiesOf(ctx, u.ID)
	if err != nil || len(ids) != 1 || ids[0].Email != "ada@example.org" || !ids[0].LastSignInAt.Equal(now.Add(time.Hour)) {
		t.Errorf("identities = %+v, %v", ids, err)
	}

	// Another subject with the same names gets a number; the same subject
	// at another issuer is another person.
	other, err := store.SignInExternal(ctx, models.ExternalSignIn{Issuer: "https://other.example.com", Subject: "s-1", Email: "ada@example.com", PreferredName: "ada", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !other.Created || other.User.Username != "ada-2" || other.User.IsAdmin {
		t.Errorf("other issuer = %+v", other.User)
	}
	noName, err := store.SignInExternal(ctx, models.ExternalSignIn{Issuer: in.Issuer, Subject: "s-2", Now: now})
	if err != nil || noName.User.Username != "user" {
		t.Errorf("no email or name: %+v, %v", noName, err)
	}

	if err := store.SetUserDisabled(ctx, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SignInExternal(ctx, in); !errors.Is(err, models.ErrUserDisabled) {
		t.Errorf("disabled: %v", err)
	}
	if _, err := store.SignInExternal(ctx, models.ExternalSignIn{Issuer: in.Issuer}); err == nil {
		t.Error("no subject accepted")
	}
}

// TestSignInExternalConcurrentFirst checks that two first sign-ins of one
// person at once make one user.
func TestSignInExternalConcurrentFirst(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	in := models.ExternalSignIn{Issuer: "https://id.example.com", Subject: "s-1", Email: "bo@example.com", Now: time.Now()}
	var wg sync.WaitGroup
	ids := make([]int64, 4)
	errs := make([]error, 4)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := store.SignInExternal(ctx, in)
			errs[i] = err
			if err == nil {
				ids[i] = res.User.ID
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Errorf("sign-in %d: user %d, %v; want user %d", i, ids[i], errs[i], ids[0])
		}
	}
}

// TestSignInExternalRoles checks that the role map's roles become the
// memberships' roles, that a higher mapped role raises a membership and
// that a lower one leaves it (grants only add).
func TestSignInExternalRoles(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	sign := func(role string) *models.User {
		t.Helper()
		res, err := store.SignInExternal(ctx, models.ExternalSignIn{Issuer: "https://id.example.com", Subject: "s-9",
			Email: "grace@example.com", Workspaces: []string{"default"}, Roles: map[string]string{"default": role}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return res.User
	}
	for _, tc := range []struct{ mapped, want string }{
		{"reader", models.RoleReader},
		{"owner", models.RoleOwner},  // raised
		{"reader", models.RoleOwner}, // not lowered
	} {
		u := sign(tc.mapped)
		if role, ok, err := store.MemberRole(ctx, "default", u.ID); err != nil || !ok || role != tc.want {
			t.Errorf("after a sign-in mapped to %s: role %q (%v, %v), want %s", tc.mapped, role, ok, err, tc.want)
		}
	}
}
