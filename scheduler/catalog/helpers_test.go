package catalog_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// testNow is the clock of the catalog under test.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// env is a catalog on a database of the test's own, with an
// administrator (so that the default workspace exists).
type env struct {
	t     testing.TB
	ctx   context.Context
	store *models.Store
	cat   *catalog.Catalog
	db    *sql.DB
	user  *models.User
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dsn := testdb.DSN(t)
	return newEnvOn(t, dsn, testdb.Open(t, dsn, testdb.Options()))
}

// newEnvOn is newEnv on the database dsn of store (a store opened with
// other options).
func newEnvOn(t testing.TB, dsn string, store *models.Store) *env {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	u, err := store.CompleteSetup(context.Background(), models.NewUser{Username: "admin", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: context.Background(), store: store, cat: catalog.New(store, func() time.Time { return testNow }), db: db, user: u}
}

// exec runs SQL on the test database.
func (e *env) exec(query string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Exec(query, args...); err != nil {
		e.t.Fatal(err)
	}
}

// fingerprint digests every row of collections and jobs, to assert that
// a dry run or a refused import changed nothing.
func (e *env) fingerprint() string {
	e.t.Helper()
	var out string
	err := e.db.QueryRow(`SELECT
		coalesce((SELECT md5(string_agg(r::text, '|' ORDER BY r.id)) FROM resource_groups r), '') ||
		coalesce((SELECT md5(string_agg(c::text, '|' ORDER BY c.id)) FROM job_collections c), '') ||
		coalesce((SELECT md5(string_agg(j::text, '|' ORDER BY j.id)) FROM jobs j), '')`).Scan(&out)
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// count returns how many jobs the database holds.
func (e *env) count() int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(`SELECT count(*) FROM jobs`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// putCollection creates a collection from an ARM body.
func (e *env) putCollection(group, name, body string) *models.CollectionRow {
	e.t.Helper()
	row, _, err := e.cat.PutCollection(e.ctx, catalog.System("test"), ref(group, name), []byte(body))
	if err != nil {
		e.t.Fatal(err)
	}
	return row
}

// putJob creates a job through the catalog.
func (e *env) putJob(coll *models.CollectionRow, name, body string) *models.Job {
	e.t.Helper()
	j, _, err := e.cat.PutJob(e.ctx, catalog.System("test"), coll, name, []byte(body))
	if err != nil {
		e.t.Fatalf("put job %s: %v", name, err)
	}
	return j
}

// importFile parses data and imports it into the default workspace,
// target collection rg/jc.
func (e *env) importFile(data string, opts catalog.ImportOptions) (*catalog.ImportReport, error) {
	e.t.Helper()
	f, err := catalog.ParseImport([]byte(data))
	if err != nil {
		e.t.Fatalf("ParseImport: %v", err)
	}
	return e.cat.Import(e.ctx, catalog.System("test"), "", ref("rg", "jc"), f, opts)
}

func ref(group, name string) models.CollectionRef {
	return models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: group, Name: name}
}
