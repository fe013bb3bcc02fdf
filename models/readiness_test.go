package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestCheckReadyFollowsTheServer: CheckReady says why the database cannot
// take writes while the server is read-only or stopped, and is ready again
// once it can.
func TestCheckReadyFollowsTheServer(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	store := p.Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CheckReady(ctx); err != nil {
		t.Fatalf("CheckReady on a writable server: %v", err)
	}

	p.SetReadOnly(t, true)
	err := store.CheckReady(ctx)
	if !errors.Is(err, models.ErrReadOnly) || !strings.Contains(err.Error(), "transaction_read_only is on") {
		t.Errorf("CheckReady on a read-only server = %v, want ErrReadOnly naming transaction_read_only", err)
	}
	p.SetReadOnly(t, false)
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady once writable again: %v", err)
	}

	p.Halt()
	err = store.CheckReady(ctx)
	if !errors.Is(err, models.ErrUnavailable) || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("CheckReady on a stopped server = %v, want ErrUnavailable", err)
	}
	// The store's other methods say so too (a 503, not a 500): on a
	// connection the server closed and on a connection attempt.
	for range 2 {
		if _, err := store.UserByID(ctx, 1); !errors.Is(err, models.ErrUnavailable) {
			t.Errorf("a read from a stopped server = %v, want ErrUnavailable", err)
		}
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady once the server is back: %v", err)
	}
}

// TestReadOnlyErrorDropsTheConnection: a write refused by a read-only
// server (SQLSTATE 25006) drops the pool's connection, so the next
// statement runs on a new one, without an error of its own; a write the
// server refuses again is ErrReadOnly (503), and writes work again once
// the server does.
func TestReadOnlyErrorDropsTheConnection(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	opts := testdb.Options()
	opts.MaxOpenConns = 1 // the pool's one connection is the one that saw the error
	store := testdb.Open(t, p.DSN(), opts)
	ctx := context.Background()
	pid := func() int {
		t.Helper()
		pid, err := store.BackendPID(ctx)
		if err != nil {
			t.Fatalf("a read after a read-only error: %v", err)
		}
		return pid
	}
	first := pid()
	if again := pid(); again != first {
		t.Fatalf("the pool changed its connection without a read-only error (%d, then %d): the test cannot tell", first, again)
	}

	p.SetReadOnly(t, true)
	if again := pid(); again != first {
		t.Fatalf("reads dropped the connection (%d, then %d): only refused writes should", first, again)
	}
	_, err := store.CreateUser(ctx, models.NewUser{Username: "refused", Password: "password1"})
	if !errors.Is(err, models.ErrReadOnly) {
		t.Fatalf("a write on a read-only server = %v, want ErrReadOnly", err)
	}
	second := pid()
	if second == first {
		t.Errorf("the connection that saw SQLSTATE 25006 (pid %d) is still in the pool", first)
	}

	// A write through the catalog's transaction (Audited) is run once more
	// on a new connection; the server still refuses it: ErrReadOnly.
	err = store.Audited(ctx, "models: test write", func(tx *models.Store) ([]models.AuditEntry, error) {
		_, err := tx.CreateUser(ctx, models.NewUser{Username: "audited", Password: "password1"})
		return nil, err
	})
	if !errors.Is(err, models.ErrReadOnly) {
		t.Fatalf("an audited write on a read-only server = %v, want ErrReadOnly", err)
	}
	if third := pid(); third == second {
		t.Errorf("the audited write's connection (pid %d) is still in the pool", second)
	}

	p.SetReadOnly(t, false)
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "accepted", Password: "password1"}); err != nil {
		t.Errorf("a write once the server is writable again: %v", err)
	}
}

// TestWriteFindsTheNewPrimary: with a multi-host URL and
// target_session_attrs=read-write, a write refused by the old primary (made
// read-only, as Patroni demotes it) is run again at once on a new
// connection, which finds the writable server: the caller sees no error.
// The two servers are independent clusters with the same schema (the
// store does not care how the new primary got its data).
func TestWriteFindsTheNewPrimary(t *testing.T) {
	t.Parallel()
	oldPrimary, newPrimary := testdb.PrivateCluster(t), testdb.PrivateCluster(t)
	dsn := fmt.Sprintf("host=%s,%s port=5432,5432 user=sked dbname=sked sslmode=disable target_session_attrs=read-write",
		oldPrimary.Dir(), newPrimary.Dir())
	opts := testdb.Options()
	opts.MaxOpenConns = 2
	store := testdb.Open(t, dsn, opts)
	ctx := context.Background()
	write := func(name string) error {
		return store.Audited(ctx, "models: test write", func(tx *models.Store) ([]models.AuditEntry, error) {
			_, err := tx.CreateUser(ctx, models.NewUser{Username: name, Password: "password1"})
			return nil, err
		})
	}
	users := func(p *testdb.Private) string {
		var names string
		p.Query(t, "sked", `SELECT coalesce(string_agg(username, ',' ORDER BY username), '') FROM users`, &names)
		return names
	}
	if err := write("before"); err != nil {
		t.Fatal(err)
	}
	if got := users(oldPrimary); got != "before" {
		t.Fatalf("the first write went to the second host: the old primary has users %q", got)
	}

	oldPrimary.SetReadOnly(t, true)
	if err := write("after"); err != nil {
		t.Fatalf("a write during the failover: %v (want it run again on the new primary)", err)
	}
	if got := users(newPrimary); got != "after" {
		t.Errorf("the new primary has users %q, want %q", got, "after")
	}
	if got := users(oldPrimary); got != "before" {
		t.Errorf("the old primary has users %q, want %q", got, "before")
	}
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady after the failover: %v", err)
	}
}

// TestWriteRunsAgainAfterALostConnection: a write through the catalog's
// transaction (Audited) whose connection was lost before its commit (the
// server restarted, or went away in a failover) runs once more on a new
// connection: the caller sees no error, and the write is there once.
func TestWriteRunsAgainAfterALostConnection(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	proxy := p.Proxy(t)
	opts := testdb.Options()
	opts.MaxOpenConns = 1
	store := testdb.Open(t, proxy.DSN("sked"), opts)
	ctx := context.Background()
	write := func(name string) error {
		return store.Audited(ctx, "models: test write", func(tx *models.Store) ([]models.AuditEntry, error) {
			_, err := tx.CreateUser(ctx, models.NewUser{Username: name, Password: "password1"})
			return nil, err
		})
	}
	if err := write("before"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		// The pool's connection breaks; the next connection goes through.
		proxy.Hold()
		proxy.Release()
		if err := write(fmt.Sprintf("after%d", i)); err != nil {
			t.Errorf("write %d after the connection was lost: %v", i, err)
		}
	}
	var names string
	p.Query(t, "sked", `SELECT string_agg(username, ',' ORDER BY username) FROM users`, &names)
	if names != "after0,after1,after2,before" {
		t.Errorf("users %q, want each write once", names)
	}
}
