package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
