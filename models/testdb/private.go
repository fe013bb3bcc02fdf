package testdb

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"sked/models"
	"sked/models/pgserver"
)

// Private is a PostgreSQL cluster of one test's own with a migrated
// database "sked": for a test that takes the server away (Halt, Start) or
// makes it read-only (SetReadOnly), which the tests sharing the package's
// cluster must not see. It is always a throwaway cluster, even when
// TEST_DATABASE_URL is set.
type Private struct {
	*pgserver.TestCluster
}

// PrivateCluster starts a Private cluster, stopped and removed when t
// ends; it fails t when PostgreSQL cannot be started.
func PrivateCluster(t testing.TB) *Private {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "sked-private-")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	c, err := pgserver.StartTestCluster(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("testdb: start PostgreSQL (install it with `apt-get install postgresql`): %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	p := &Private{TestCluster: c}
	p.Exec(t, "postgres", `CREATE DATABASE sked`)
	store, err := models.Open(ctx, p.DSN(), Options())
	if err != nil {
		t.Fatalf("testdb: open private database: %v", err)
	}
	defer store.Close()
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatalf("testdb: migrate private database: %v", err)
	}
	return p
}

// DSN returns the keyword/value connection string of the database "sked".
func (p *Private) DSN() string { return p.TestCluster.DSN("sked") }

// Store returns a Store on the database "sked" with Options, closed when t
// ends.
func (p *Private) Store(t testing.TB) *models.Store {
	t.Helper()
	return Open(t, p.DSN(), Options())
}

// SetReadOnly makes the server read-only (on) or writable again, as a
// primary being demoted looks to its clients: default_transaction_read_only
// by ALTER SYSTEM and a reload, so that the sessions already open refuse
// writes too (SQLSTATE 25006) from their next statement on. It returns
// once a new session sees the setting, that is once the server has
// signalled the reload to every session.
func (p *Private) SetReadOnly(t testing.TB, on bool) {
	t.Helper()
	value := "off"
	if on {
		value = "on"
	}
	p.Exec(t, "postgres", `ALTER SYSTEM SET default_transaction_read_only = `+value, `SELECT pg_reload_conf()`)
	deadline := time.Now().Add(time.Minute)
	for {
		var got string
		p.Query(t, "postgres", `SHOW default_transaction_read_only`, &got)
		if got == value {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testdb: default_transaction_read_only is still %s a minute after the reload", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Exec runs statements on database db of the cluster (a session of its
// own, which may write while the server is read-only), failing t on an
// error.
func (p *Private) Exec(t testing.TB, db string, stmts ...string) {
	t.Helper()
	conn, err := sql.Open("pgx", p.TestCluster.DSN(db)+" options='-c default_transaction_read_only=off'")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.Exec(s); err != nil {
			t.Fatalf("testdb: %s: %v", s, err)
		}
	}
}

// Query reads one value from database db of the cluster, failing t on an
// error.
func (p *Private) Query(t testing.TB, db, q string, dest any) {
	t.Helper()
	conn, err := sql.Open("pgx", p.TestCluster.DSN(db))
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer conn.Close()
	if err := conn.QueryRow(q).Scan(dest); err != nil {
		t.Fatalf("testdb: %s: %v", q, err)
	}
}

// Standby starts a streaming standby of p (pg_basebackup -R), stopped and
// removed when t ends: Promote makes it the primary.
func (p *Private) Standby(t testing.TB) *Private {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "sked-standby-")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	c, err := pgserver.StartTestStandby(ctx, p.TestCluster, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("testdb: start a standby: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	return &Private{TestCluster: c}
}

// CatchUp waits until standby has replayed everything primary wrote so
// far.
func (p *Private) CatchUp(t testing.TB, primary *Private) {
	t.Helper()
	var lsn string
	primary.Query(t, "postgres", `SELECT pg_current_wal_lsn()::text`, &lsn)
	deadline := time.Now().Add(time.Minute)
	for {
		var done bool
		p.Query(t, "postgres", `SELECT pg_last_wal_replay_lsn() >= '`+lsn+`'::pg_lsn`, &done)
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testdb: the standby has not replayed %s a minute later", lsn)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
