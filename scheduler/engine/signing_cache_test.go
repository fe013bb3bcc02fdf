package engine

import (
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestSigningSecretsReadOncePerCollection runs jobs of a signing
// collection with a real engine on the real database: the collection's
// secret is read once for several attempts (not once per attempt), a
// rotation is honoured by the very next attempt, a collection that does
// not sign costs no read, and a removed secret stops signing at once.
func TestSigningSecretsReadOncePerCollection(t *testing.T) {
	srv, got := signingTarget(t)
	e := newEnv(t, nil)
	if e.engine.signingCache == nil {
		t.Fatal("the engine on a *models.Store has no signing cache")
	}
	cat := catalog.New(e.store, nil)
	ref := models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "rg", Name: e.coll.Name}
	run := func(name string) signedRequest {
		t.Helper()
		return e.runSigned(t, srv.URL, got, name, `{}`)
	}
	reads := func() int64 {
		e.engine.signingCache.mu.Lock()
		defer e.engine.signingCache.mu.Unlock()
		return e.engine.signingCache.reads
	}
	verifies := func(secret string, r signedRequest) bool {
		t.Helper()
		return documentedVerify(secret, r.header, r.body)
	}

	for _, name := range []string{"u1", "u2"} {
		if r := run(name); r.header.Get("webhook-signature") != "" {
			t.Errorf("%s: a collection without a secret signs", name)
		}
	}
	if n := reads(); n != 0 {
		t.Errorf("a collection without a secret: %d reads, want 0", n)
	}

	first, err := cat.NewSigningSecret(e.ctx, catalog.System("test"), ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s1", "s2", "s3"} {
		if r := run(name); !verifies(first.Secret, r) {
			t.Errorf("%s: not signed with the secret: %v", name, r.header)
		}
	}
	if n := reads(); n != 1 {
		t.Errorf("three attempts of one signing collection: %d reads, want 1", n)
	}

	second, err := cat.NewSigningSecret(e.ctx, catalog.System("test"), ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := run("r1")
	if !verifies(second.Secret, r) || verifies(first.Secret, r) {
		t.Errorf("the attempt after a rotation without overlap must sign with the new secret only: %v", r.header)
	}
	run("r2")
	if n := reads(); n != 2 {
		t.Errorf("after one rotation: %d reads, want 2", n)
	}

	if err := cat.RemoveSigningSecret(e.ctx, catalog.System("test"), ref); err != nil {
		t.Fatal(err)
	}
	if r := run("removed"); r.header.Get("webhook-signature") != "" {
		t.Errorf("a removed secret still signs: %v", r.header)
	}
}
