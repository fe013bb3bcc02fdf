package catalog_test

import (
	"errors"
	"testing"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// TestSigningSecretLifecycle makes, rotates (with and without overlap)
// and removes a collection's signing secret; editors may, operators may
// not, and a refused write changes nothing.
func TestSigningSecretLifecycle(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	owner := catalog.Actor{UserID: e.user.ID}
	g, err := e.cat.NewSigningSecret(e.ctx, owner, ref("rg", "JC"), time.Hour)
	if err != nil || g.Rotated || g.PreviousUntil != nil {
		t.Fatalf("first secret %+v %v", g, err)
	}
	r, err := e.cat.NewSigningSecret(e.ctx, owner, ref("rg", "jc"), time.Hour)
	if err != nil || !r.Rotated || r.PreviousUntil == nil || !r.PreviousUntil.Equal(testNow.Add(time.Hour)) {
		t.Fatalf("rotation %+v %v", r, err)
	}
	stored, err := e.store.SigningOf(e.ctx, coll.ID)
	if err != nil || stored.Current != r.Secret || stored.Previous != g.Secret {
		t.Fatalf("stored %+v %v", stored, err)
	}
	if got := stored.Secrets(testNow); len(got) != 2 || got[0] != r.Secret || got[1] != g.Secret {
		t.Errorf("secrets during the overlap %v", got)
	}
	if _, err := e.cat.NewSigningSecret(e.ctx, owner, ref("rg", "jc"), 31*24*time.Hour); problem.As(err) == nil || problem.As(err).For("overlap") == "" {
		t.Errorf("a 31-day overlap: %v, want a problem at overlap", err)
	}
	if _, err := e.cat.NewSigningSecret(e.ctx, owner, ref("rg", "nope"), 0); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("an unknown collection: %v", err)
	}

	for _, tc := range []struct {
		role    models.Role
		allowed bool
	}{{models.RoleOperator, false}, {models.RoleEditor, true}} {
		role, allowed := tc.role, tc.allowed
		u, err := e.store.CreateUser(e.ctx, models.NewUser{Username: "u-" + string(role), Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.SetMemberRole(e.ctx, models.DefaultWorkspaceID, u.ID, role); err != nil {
			t.Fatal(err)
		}
		actor := catalog.Actor{UserID: u.ID}
		before, _ := e.store.SigningOf(e.ctx, coll.ID)
		_, err = e.cat.NewSigningSecret(e.ctx, actor, ref("rg", "jc"), 0)
		var fe *catalog.ForbiddenError
		if allowed != (err == nil) || (!allowed && !errors.As(err, &fe)) {
			t.Errorf("%s: %v", role, err)
		}
		if after, _ := e.store.SigningOf(e.ctx, coll.ID); !allowed && after.Current != before.Current {
			t.Errorf("%s changed the secret", role)
		}
		if err := e.cat.RemoveSigningSecret(e.ctx, actor, ref("rg", "jc")); !allowed && !errors.As(err, &fe) {
			t.Errorf("%s removed: %v", role, err)
		}
	}
	if _, err := e.store.SigningOf(e.ctx, coll.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("after the editor's removal: %v", err)
	}
}

// TestWatchJobAndAddAlertRule: the bell sends to the first channel in
// name order, once; added rules get free names from scope and channel;
// owners only.
func TestWatchJobAndAddAlertRule(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	owner := catalog.Actor{UserID: e.user.ID}
	if _, err := e.cat.WatchJob(e.ctx, owner, coll, "daily"); problem.As(err) == nil || problem.As(err).For("channel") == "" {
		t.Fatalf("the bell without channels: %v", err)
	}
	for _, name := range []string{"pager", "Alpha"} {
		if _, err := e.cat.PutChannel(e.ctx, owner, models.DefaultWorkspaceID, name, []byte(`{"type":"webhook","properties":{"url":"https://example.com/h"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.cat.WatchJob(e.ctx, owner, coll, "daily")
	if err != nil || r.Name != "daily-Alpha" || r.ChannelName != "Alpha" || string(r.Events) != `["occurrenceFaulted", "recovered"]` {
		t.Fatalf("bell rule %+v %v", r, err)
	}
	if again, err := e.cat.WatchJob(e.ctx, owner, coll, "daily"); err != nil || again.ID != r.ID {
		t.Errorf("a second ring: %+v %v", again, err)
	}
	body := []byte(`{"channel":"pager","scope":{"resourceGroup":"rg","collection":"jc","job":"daily"},"events":["missed"]}`)
	for _, want := range []string{"daily-pager", "daily-pager-2"} {
		if r, err := e.cat.AddAlertRule(e.ctx, owner, models.DefaultWorkspaceID, body); err != nil || r.Name != want {
			t.Errorf("add: %+v %v, want %s", r, err, want)
		}
	}
	if r, err := e.cat.AddAlertRule(e.ctx, owner, models.DefaultWorkspaceID, []byte(`{"channel":"pager","events":["jobFaulted"]}`)); err != nil || r.Name != "workspace-pager" {
		t.Errorf("add for the workspace: %+v %v", r, err)
	}
	u, err := e.store.CreateUser(e.ctx, models.NewUser{Username: "ed", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetMemberRole(e.ctx, models.DefaultWorkspaceID, u.ID, models.RoleEditor); err != nil {
		t.Fatal(err)
	}
	var fe *catalog.ForbiddenError
	if _, err := e.cat.WatchJob(e.ctx, catalog.Actor{UserID: u.ID}, coll, "other"); !errors.As(err, &fe) || fe.Need != models.RoleOwner {
		t.Errorf("an editor rings: %v", err)
	}
	if _, err := e.cat.AddAlertRule(e.ctx, catalog.Actor{UserID: u.ID}, models.DefaultWorkspaceID, body); !errors.As(err, &fe) {
		t.Errorf("an editor adds: %v", err)
	}
	if rules, _ := e.store.AlertRulesOf(e.ctx, models.DefaultWorkspaceID); len(rules) != 4 {
		t.Errorf("%d rules, want 4", len(rules))
	}
}
