package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/models/testdb"
)

func memberNames(t *testing.T, store *models.Store, ws string) map[string]string {
	t.Helper()
	ms, err := store.MembersOf(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range ms {
		out[m.Username] = m.Role
	}
	return out
}

func TestUsersAreListedByName(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	for _, name := range []string{"zoe", "Ada", "bob"} {
		if _, err := store.CreateUser(ctx, models.NewUser{Username: name, Password: "password123", Admin: name == "Ada"}); err != nil {
			t.Fatal(err)
		}
	}
	users, err := store.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range users {
		got = append(got, u.Username)
	}
	if len(got) != 3 || got[0] != "Ada" || got[1] != "bob" || got[2] != "zoe" {
		t.Errorf("Users = %v, want [Ada bob zoe]", got)
	}
	if !users[0].IsAdmin || users[1].IsAdmin {
		t.Errorf("admin flags: %+v", users)
	}
}

func TestResetPassword(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}

	err = store.ResetPassword(ctx, u.ID, "short")
	var v *problem.List
	if !errors.As(err, &v) || v.For("password") != "must be at least 8 characters" {
		t.Fatalf("ResetPassword with a short password = %v, want a *problem.List on password", err)
	}
	if _, err := store.Authenticate(ctx, "bob", "password123"); err != nil {
		t.Fatalf("a refused reset changed the password: %v", err)
	}

	if err := store.ResetPassword(ctx, u.ID, "new password 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Authenticate(ctx, "bob", "password123"); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("the old password still works: %v", err)
	}
	if got, err := store.Authenticate(ctx, "bob", "new password 1"); err != nil || got.ID != u.ID {
		t.Errorf("the new password does not work: %v", err)
	}
	if err := store.ResetPassword(ctx, u.ID+1000, "new password 1"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("ResetPassword of an unknown user = %v, want ErrNotFound", err)
	}
}

func TestMembersAddListRemove(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	admin, err := store.CompleteSetup(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := store.CreateUser(ctx, models.NewUser{Username: "Bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "carol", Password: "password123"}); err != nil {
		t.Fatal(err)
	}
	const ws = models.DefaultWorkspaceID
	if got := memberNames(t, store, ws); len(got) != 3 || got["ada"] != models.RoleOwner || got["Bob"] != models.RoleMember {
		t.Fatalf("members of default = %v", got)
	}
	if role, ok, err := store.MemberRole(ctx, ws, admin.ID); err != nil || !ok || role != models.RoleOwner {
		t.Errorf("MemberRole(ada) = %q, %v, %v", role, ok, err)
	}

	// Removing bob, then adding him back (by name, case-insensitively) as
	// an owner.
	if err := store.RemoveMember(ctx, ws, bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.MemberRole(ctx, ws, bob.ID); ok {
		t.Fatal("bob is still a member after RemoveMember")
	}
	if err := store.RemoveMember(ctx, ws, bob.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("removing a non-member = %v, want ErrNotFound", err)
	}
	m, err := store.AddMember(ctx, ws, " BOB ", models.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	if m.UserID != bob.ID || m.Username != "Bob" || m.Role != models.RoleOwner {
		t.Errorf("AddMember = %+v", m)
	}

	for _, tc := range []struct {
		name, username, role, field, message string
	}{
		{"empty name", "  ", models.RoleMember, "username", "is required"},
		{"unknown user", "nobody", models.RoleMember, "username", `"nobody" is not a user of Sked`},
		{"already a member", "CAROL", models.RoleMember, "username", "carol is already a member"},
		{"bad role", "bob", "king", "role", "must be reader, operator, editor or owner"},
	} {
		_, err := store.AddMember(ctx, ws, tc.username, tc.role)
		var v *problem.List
		if !errors.As(err, &v) || v.For(tc.field) != tc.message {
			t.Errorf("%s: AddMember = %v, want %s: %s", tc.name, err, tc.field, tc.message)
		}
	}
	if _, err := store.AddMember(ctx, "nowhere", "bob", models.RoleMember); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("AddMember to an unknown workspace = %v, want ErrNotFound", err)
	}

	// Two owners: one may go, the last may not.
	if err := store.RemoveMember(ctx, ws, admin.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.RemoveMember(ctx, ws, bob.ID); !errors.Is(err, models.ErrLastOwner) {
		t.Fatalf("removing the last owner = %v, want ErrLastOwner", err)
	}
	if got := memberNames(t, store, ws); len(got) != 2 || got["Bob"] != models.RoleOwner || got["carol"] != models.RoleMember {
		t.Errorf("members after the refused removal = %v", got)
	}
}

// Two owners removing each other at the same moment: one succeeds, and the
// workspace keeps an owner.
func TestRemoveMemberKeepsAnOwnerUnderConcurrency(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	a, err := store.CompleteSetup(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123", Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 10; round++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []int64{a.ID, b.ID} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = store.RemoveMember(ctx, models.DefaultWorkspaceID, id)
			}()
		}
		wg.Wait()
		failed := 0
		for _, err := range errs {
			if errors.Is(err, models.ErrLastOwner) {
				failed++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if failed != 1 {
			t.Fatalf("round %d: %d removals refused, want exactly 1 (%v)", round, failed, errs)
		}
		owners := 0
		for _, role := range memberNames(t, store, models.DefaultWorkspaceID) {
			if role == models.RoleOwner {
				owners++
			}
		}
		if owners != 1 {
			t.Fatalf("round %d: %d owners left, want 1", round, owners)
		}
		// Put the removed one back for the next round.
		for i, err := range errs {
			if err == nil {
				name := []string{"ada", "bob"}[i]
				if _, err := store.AddMember(ctx, models.DefaultWorkspaceID, name, models.RoleOwner); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestWorkspaceByID(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	if _, err := store.CompleteSetup(ctx, models.NewUser{Username: "ada", Password: "password123"}); err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(ctx, models.DefaultWorkspaceID)
	if err != nil || ws.ID != models.DefaultWorkspaceID || ws.DisplayName != "Default" {
		t.Errorf("Workspace(default) = %+v, %v", ws, err)
	}
	if _, err := store.Workspace(ctx, "nowhere"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Workspace(nowhere) = %v, want ErrNotFound", err)
	}
}
