package main

import (
	"net/http"
	"strings"
	"testing"

	"sked/models/pgserver"
)

func TestCommandsShareTheEmbeddedPostgreSQL(t *testing.T) {
	dataDir := newDataDir(t)
	env := map[string]string{"SKED_DATA_DIR": dataDir}

	// With no serve running, a command starts PostgreSQL for its own
	// duration and stops it again.
	code, stdout, stderr := runForTest([]string{"migrate"}, env, "")
	if code != 0 || !strings.Contains(stdout, "database schema is at version") {
		t.Fatalf("migrate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if pid := pgserver.ServerPID(dataDir); pid != 0 {
		t.Fatalf("PostgreSQL (pid %d) still runs after migrate", pid)
	}

	base, stop := startSked(t, dataDir)
	pgPID := pgserver.ServerPID(dataDir)
	if pgPID == 0 {
		t.Fatalf("no PostgreSQL runs for the server (pid %d)", pgPID)
	}

	// While serve runs, user add uses its PostgreSQL and leaves it running.
	code, stdout, stderr = runForTest([]string{"user", "add", "bob", "--admin"}, env, "password123\n")
	if code != 0 || stdout != "created administrator bob\n" {
		t.Fatalf("user add: exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if pgserver.ServerPID(dataDir) != pgPID {
		t.Fatal("user add stopped or replaced the server's PostgreSQL")
	}
	resp, err := http.Get(base + "/setup")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/signin" {
		t.Errorf("after user add --admin, /setup leads to %s, want /signin", resp.Request.URL.Path)
	}
	code, stdout, stderr = runForTest([]string{"token", "add", "BOB", "--name", "ci"}, env, "")
	if code != 0 || !strings.HasPrefix(stdout, "sked_") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("token add: exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = runForTest([]string{"token", "add", "nobody"}, env, "")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, `there is no user "nobody"`) {
		t.Errorf("token add for an unknown user: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	code, _, stderr = runForTest([]string{"user", "add", "BOB"}, env, "password123\n")
	if code != exitUsage || !strings.Contains(stderr, "username: is already taken") {
		t.Errorf("duplicate user add: exit %d, %s", code, stderr)
	}

	// A second serve on the same data directory is refused and harms nothing.
	code, _, stderr = runForTest([]string{"serve", "--listen", "127.0.0.1:0"}, env, "")
	if code != exitError || !strings.Contains(stderr, "already running") {
		t.Errorf("second serve: exit %d, %s", code, stderr)
	}
	// The first serve still answers ready.
	waitReady(t, base)

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if pgserver.ServerPID(dataDir) != 0 {
		t.Errorf("PostgreSQL (pid %d) still runs after serve stopped", pgPID)
	}
}
