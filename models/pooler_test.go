package models_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// pooledOptions are testdb.Options for a store behind the test PgBouncer.
func pooledOptions() models.Options {
	opts := testdb.Options()
	opts.Pooler = models.PoolerTransaction
	return opts
}

// TestPoolerSharesServerConnections checks the test PgBouncer itself: ten
// client connections, each holding its own, run their statements on at
// most testdb.PoolSize server connections, so that the tests through it
// really have consecutive transactions of one client run on other
// sessions.
func TestPoolerSharesServerConnections(t *testing.T) {
	dsn := testdb.Pooled(t, testdb.DSN(t))
	db, err := sql.Open("pgx", dsn+" default_query_exec_mode=exec")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const clients = 10
	pids := map[int]bool{}
	var conns []*sql.Conn
	for range clients {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for range 3 {
		for _, c := range conns {
			var pid int
			if err := c.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			pids[pid] = true
		}
	}
	if len(pids) > testdb.PoolSize {
		t.Errorf("%d client connections ran on %d server connections, want at most %d", clients, len(pids), testdb.PoolSize)
	}
}

// TestMigrateThroughPooler migrates an empty database through PgBouncer
// in transaction mode from three stores at once: every migration is
// applied once, by one of them (the migration lock is the transaction's
// own, so it cannot stay with a server connection another client gets).
func TestMigrateThroughPooler(t *testing.T) {
	dsn := testdb.Pooled(t, testdb.EmptyDSN(t))
	ctx := context.Background()
	const instances = 3
	applied := make([][]int, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		store := testdb.Open(t, dsn, pooledOptions())
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = store.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, m := range all {
		want = append(want, m.Version)
	}
	got := slices.Concat(applied...)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the instances applied %v together, want each of %v once", applied, want)
	}
	store := testdb.Open(t, dsn, pooledOptions())
	again, err := store.Migrate(ctx)
	if err != nil || len(again) != 0 {
		t.Errorf("Migrate again = %v, %v; want nothing applied", again, err)
	}
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady through the pooler = %v", err)
	}
}

// TestOpenRefusesAnUnknownPooler: a pooler Sked does not know is an
// error naming it, not a direct connection.
func TestOpenRefusesAnUnknownPooler(t *testing.T) {
	_, err := models.Open(context.Background(), testdb.DSN(t), models.Options{Pooler: "session"})
	if err == nil {
		t.Fatal("Open with pooler \"session\" succeeded")
	}
	if want := `"session" is not a pooler`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
