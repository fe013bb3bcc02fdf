package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// TestMigrateOnAnExternalDatabase: migrate with --database-url on a data
// directory that does not exist yet creates it for the generated secret
// key, and a database it cannot reach is an error that names the command,
// not a panic.
func TestMigrateOnAnExternalDatabase(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "new", "data")
	env := map[string]string{"SKED_DATABASE_URL": testdb.DSN(t), "SKED_DATA_DIR": dataDir}
	code, stdout, stderr := runForTest([]string{"migrate"}, env, "")
	if code != 0 || !strings.Contains(stdout, "database schema is at version") {
		t.Fatalf("migrate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "secret.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret key in the new data directory: %v, %v", fi, err)
	}

	env["SKED_DATABASE_URL"] = "host=" + t.TempDir() + " user=nobody dbname=none sslmode=disable connect_timeout=2"
	code, stdout, stderr = runForTest([]string{"migrate"}, env, "")
	if code == 0 || !strings.HasPrefix(stderr, "sked: migrate: ") || strings.Contains(stderr, "panic") {
		t.Fatalf("migrate on a database that is not there: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// insertFutureMigration records a migration newer than this release knows,
// applied by release, as a newer release would.
func insertFutureMigration(t *testing.T, dsn string, version int, release string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_by) VALUES ($1, $2, $3)`,
		version, fmt.Sprintf("%04d_future.sql", version), release); err != nil {
		t.Fatal(err)
	}
}

// TestCommandsRefuseANewerSchema: serve, migrate and every other command
// refuse a database migrated by a newer release, naming the release.
func TestCommandsRefuseANewerSchema(t *testing.T) {
	dsn := testdb.DSN(t)
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	known := all[len(all)-1].Version
	insertFutureMigration(t, dsn, known+2, "1a2b3c4")
	env := map[string]string{"SKED_DATABASE_URL": dsn, "SKED_DATA_DIR": t.TempDir()}
	want := fmt.Sprintf("database schema is at migration %d (applied by sked 1a2b3c4); this release (sked %s) knows migrations up to %d: run sked 1a2b3c4 or newer\n",
		known+2, version, known)
	for name, args := range map[string][]string{"migrate": {"migrate"}, "user add": {"user", "add", "bob"}, "serve": {"serve", "--listen", "127.0.0.1:0"}} {
		code, stdout, stderr := runForTest(args, env, "password123\n")
		if code != exitError || !strings.HasSuffix(stderr, "sked: "+name+": models: migrate: "+want) {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s\nwant …%s", args, code, stdout, stderr, want)
		}
	}
}

// TestMigrateReportsAWaitingContract: a contract migration that waits for
// older instances is reported, exit 0; with --complete, exit 3.
func TestMigrateReportsAWaitingContract(t *testing.T) {
	ctx := context.Background()
	db := &database{Store: testdb.Store(t), Held: &models.HeldMigration{
		Migration: models.Migration{Version: 90, Name: "0090_drop_old.sql", Contract: true},
		Waiting:   []int{90},
		Blockers:  []models.EngineInstance{{ID: "host-1", Version: "", SchemaVersion: 0}},
	}}
	v, err := db.Store.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("database schema is at version %d\n"+
		"contract migration 0090_drop_old.sql waits for 1 instance(s) of an older release to stop: host-1 (release unknown, knows migrations up to 0); "+
		"run sked migrate again once they have stopped\n", v)
	for _, complete := range []bool{false, true} {
		var out, errb bytes.Buffer
		err := reportSchema(ctx, stdio{out: &out, err: &errb}, db, complete)
		code := exitStatus(stdio{out: &out, err: &errb}, err)
		if out.String() != want || code != map[bool]int{false: 0, true: exitContractWaits}[complete] {
			t.Errorf("complete %v: exit %d\nstdout %s\nstderr %s\nwant stdout %s", complete, code, out.String(), errb.String(), want)
		}
	}
}
