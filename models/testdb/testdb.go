// Package testdb gives tests their own PostgreSQL database.
//
// One throwaway cluster is started per test package (or the server named by
// TEST_DATABASE_URL is used), a template database is migrated once, and
// every test gets a fresh database cloned from the template, dropped when
// the test ends; Pooled reaches one through a PgBouncer in transaction
// mode. Tests never skip for want of PostgreSQL: they fail and say
// how to install it.
//
// A package that uses it declares
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/pgserver"
)

// EnvURL names the environment variable with a PostgreSQL URL to use
// instead of a throwaway cluster. The role needs CREATEDB.
const EnvURL = "TEST_DATABASE_URL"

var (
	once     sync.Once
	setupErr error
	cluster  *pgserver.TestCluster
	baseURL  string // server to use when EnvURL is set
	admin    *sql.DB
	template string
	createMu sync.Mutex
	counter  int

	poolerOnce sync.Once
	poolerErr  error
	pooler     *pgserver.TestPooler
)

// Main runs the tests of a package and then stops the package's cluster
// (or drops its template database). It calls os.Exit.
func Main(m *testing.M) {
	code := m.Run()
	if err := shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "testdb:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func shutdown() error {
	if pooler != nil {
		if err := pooler.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "testdb:", err)
		}
	}
	if admin != nil && template != "" {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS "` + template + `" WITH (FORCE)`)
		admin.Close()
	}
	if cluster != nil {
		return cluster.Stop()
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// dsnFor returns the DSN of database name on the shared server.
func dsnFor(name string) string {
	if cluster != nil {
		return cluster.DSN(name)
	}
	u, err := url.Parse(baseURL)
	if err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return baseURL + " dbname=" + name
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if u := os.Getenv(EnvURL); u != "" {
		baseURL = u
	} else {
		dir, err := os.MkdirTemp("", "sked-testpg-")
		if err != nil {
			return fmt.Errorf("testdb: %w", err)
		}
		cluster, err = pgserver.StartTestCluster(ctx, dir)
		if err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("testdb: start PostgreSQL (install it with `apt-get install postgresql`, or set %s): %w", EnvURL, err)
		}
	}
	var err error
	admin, err = sql.Open("pgx", dsnFor("postgres"))
	if err != nil {
		return fmt.Errorf("testdb: connect: %w", err)
	}
	template = "sked_tmpl_" + randomSuffix()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE "`+template+`"`); err != nil {
		return fmt.Errorf("testdb: create template: %w", err)
	}
	store, err := models.Open(ctx, dsnFor(template), models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 2})
	if err != nil {
		return fmt.Errorf("testdb: open template: %w", err)
	}
	defer store.Close()
	if _, err := store.Migrate(ctx); err != nil {
		return fmt.Errorf("testdb: migrate template: %w", err)
	}
	return nil
}

// DSN returns the DSN of a new, migrated database of t's own, dropped when t
// ends. It fails t when PostgreSQL cannot be started.
func DSN(t testing.TB) string {
	t.Helper()
	return newDatabase(t, "sked_t", true)
}

// EmptyDSN returns the DSN of a new, empty database of t's own (no
// migration applied), dropped when t ends: for tests of the migrations
// themselves, or of a release that migrates it its own way. It fails t
// when PostgreSQL cannot be started.
func EmptyDSN(t testing.TB) string {
	t.Helper()
	return newDatabase(t, "sked_e", false)
}

// newDatabase creates a database named prefix, a counter and a random
// suffix, a copy of the migrated template when migrated is true (else an
// empty one), drops it when t ends and returns its DSN. It starts the
// test process's server on first use.
func newDatabase(t testing.TB, prefix string, migrated bool) string {
	t.Helper()
	once.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	createMu.Lock()
	counter++
	name := fmt.Sprintf("%s%d_%s", prefix, counter, randomSuffix())
	create := `CREATE DATABASE "` + name + `"`
	if migrated {
		create += ` TEMPLATE "` + template + `"`
	}
	// A template must have no connections while it is copied, and copies
	// made at the same moment get in each other's way: one at a time.
	_, err := admin.Exec(create)
	createMu.Unlock()
	if err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`); err != nil {
			t.Errorf("testdb: drop database %s: %v", name, err)
		}
	})
	return dsnFor(name)
}

// PoolSize is the default_pool_size of the test process's PgBouncer: the
// server connections the clients of one database share.
const PoolSize = 5

// Pooled returns the DSN of the database that dsn (from DSN or EmptyDSN)
// names, reached through the test process's PgBouncer in transaction
// mode (pool_mode = transaction, PoolSize server connections per
// database, so that the transactions of many client connections take
// turns on a few server connections), which is started on first use and
// stopped by Main. Open stores on it with Pooler models.PoolerTransaction;
// LISTEN needs dsn itself. It fails t when pgbouncer is missing, saying
// how to install it.
func Pooled(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("testdb: pooled: %v", err)
	}
	poolerOnce.Do(func() { poolerErr = startPooler() })
	if poolerErr != nil {
		t.Fatal(poolerErr)
	}
	return pooler.DSN(cfg.Database)
}

// startPooler starts the test process's PgBouncer in front of its server.
func startPooler() error {
	dir, err := os.MkdirTemp("", "sked-testpgb-")
	if err != nil {
		return fmt.Errorf("testdb: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pooler, err = pgserver.StartTestPooler(ctx, dir, dsnFor("postgres"), PoolSize)
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("testdb: start PgBouncer: %w", err)
	}
	return nil
}

// SecretKey is the job secrets key of the stores Store returns.
var SecretKey = []byte("sked-test-secret-key-32-bytes!!!")

// Options returns the options of the stores Store opens: passwords
// hashed at bcrypt's minimum cost to keep tests fast, at most 5
// connections, job secrets sealed with SecretKey.
func Options() models.Options {
	return models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 5, SecretKeys: [][]byte{SecretKey}}
}

// Store returns a Store on a new database of t's own (see DSN) with
// Options, closed when t ends.
func Store(t testing.TB) *models.Store {
	t.Helper()
	return Open(t, DSN(t), Options())
}

// Open returns a Store with opts on the database dsn (one from DSN, or one
// of a server the test started itself), closed when t ends; it fails t
// when the store cannot be opened. It is how tests open every store but
// the one of Store: a second store on the same database (another
// instance), or one with other options.
func Open(t testing.TB, dsn string, opts models.Options) *models.Store {
	t.Helper()
	store, err := models.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("testdb: open store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}
