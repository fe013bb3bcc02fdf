package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
)

// TestPutCollectionSigningIsOneWrite: a PUT that changes a collection and
// enables signing on a server that cannot seal the secret (no secret key)
// fails as a whole: the collection keeps its settings, no secret, no audit
// entry.
func TestPutCollectionSigningIsOneWrite(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	if _, err := store.CompleteSetup(ctx, models.NewUser{Username: "admin", Password: "password123"}); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(store, nil)
	r := ref("rg", "jc")
	if _, err := cat.PutCollectionWrite(ctx, catalog.System("test"), r, []byte(`{"properties":{"sku":{"name":"Standard"}}}`)); err != nil {
		t.Fatal(err)
	}
	keyless := catalog.New(testdb.Open(t, dsn, models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 2}), nil)
	_, err := keyless.PutCollectionWrite(ctx, catalog.System("test"), r, []byte(`{"properties":{"sku":{"name":"Free"},"signing":{"enabled":true}}}`))
	if !errors.Is(err, models.ErrNoSecretKey) {
		t.Fatalf("PUT without a secret key: %v, want ErrNoSecretKey", err)
	}
	row, err := store.CollectionByRef(ctx, r)
	if err != nil || row.SKU != models.SKUStandard {
		t.Errorf("the collection changed: %+v %v", row, err)
	}
	if _, err := store.SigningOf(ctx, row.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a secret was kept: %v", err)
	}
	page, err := store.AuditEntries(ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 1 || page.Entries[0].Action != string(catalog.OpPutCollection) || page.Entries[0].Detail != "created" {
		t.Errorf("audit entries %+v, want only the creation's", page.Entries)
	}
}

// TestCollectionWriteSigningParts: a PUT that enables signing and a PATCH
// that disables it each pass the hook twice (the collection's change,
// then the secret's) and leave an audit entry of each; enabling a
// collection that signs already passes only the collection's.
func TestCollectionWriteSigningParts(t *testing.T) {
	e := newEnv(t)
	e.putCollection("rg", "jc", `{}`)
	var got []catalog.Op
	catalog.SetOnChange(e.cat, func(_ context.Context, _ catalog.Actor, ch catalog.Change) { got = append(got, ch.Op) })
	owner := catalog.Actor{UserID: e.user.ID}
	w, err := e.cat.PutCollectionWrite(e.ctx, owner, ref("rg", "jc"), []byte(`{"properties": {"signing": {"enabled": true}}}`))
	if err != nil || w.Secret == "" || w.SigningRemoved {
		t.Fatalf("enabling: %+v %v", w, err)
	}
	w, err = e.cat.PutCollectionWrite(e.ctx, owner, ref("rg", "jc"), []byte(`{"properties": {"signing": {"enabled": true}}}`))
	if err != nil || w.Secret != "" {
		t.Fatalf("enabling again: %+v %v", w, err)
	}
	w, err = e.cat.PatchCollectionWrite(e.ctx, owner, ref("rg", "jc"), []byte(`{"properties": {"signing": {"enabled": false}}}`))
	if err != nil || !w.SigningRemoved || w.Secret != "" {
		t.Fatalf("disabling: %+v %v", w, err)
	}
	want := []catalog.Op{catalog.OpPutCollection, catalog.OpPutSigning, catalog.OpPutCollection, catalog.OpPatchCollection, catalog.OpDeleteSigning}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hooks %v, want %v", got, want)
	}
	page, err := e.store.AuditEntries(e.ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range page.Entries {
		if strings.HasPrefix(a.Action, "collection.signing") {
			actions = append(actions, a.Action+" "+a.Detail)
		}
	}
	if fmt.Sprint(actions) != "[collection.signing.delete  collection.signing.put generated]" {
		t.Errorf("audit entries %q", actions)
	}
}
