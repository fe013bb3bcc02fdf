package catalog_test

import (
	"context"
	"errors"
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
	if _, err := cat.PutCollectionWrite(ctx, catalog.Actor{}, r, []byte(`{"properties":{"sku":{"name":"Standard"}}}`)); err != nil {
		t.Fatal(err)
	}
	keyless := catalog.New(testdb.Open(t, dsn, models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 2}), nil)
	_, err := keyless.PutCollectionWrite(ctx, catalog.Actor{}, r, []byte(`{"properties":{"sku":{"name":"Free"},"signing":{"enabled":true}}}`))
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
	page, err := store.AuditEntries(ctx, models.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Entries {
		if e.Action != string(catalog.OpPutCollection) || e.Detail != "created" {
			t.Errorf("the failed write left an audit entry: %+v", e)
		}
	}
}
