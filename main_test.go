package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sked/models/pgserver"
	"sked/models/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// dbEnv is the environment of a command on a test database of t's own,
// with an administrator "ada" (member of the default workspace).
func dbEnv(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{
		"SKED_DATABASE_URL": testdb.DSN(t),
		"SKED_SECRET_KEY":   hex.EncodeToString(testdb.SecretKey),
		"SKED_DATA_DIR":     t.TempDir(),
	}
	if code, _, stderr := runForTest([]string{"user", "add", "ada", "--admin"}, env, "password123\n"); code != 0 {
		t.Fatalf("user add: exit %d: %s", code, stderr)
	}
	return env
}

// writeFile writes content to a file in a new temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// seedDaily is the seeds' "At 05:15 and 17:15, every day" example, flat.
const seedDaily = `{"startTime": "2026-03-01T00:00:00Z",
 "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "day", "schedule": {"hours": [5, 17], "minutes": [15]}}}`

// namedSeedJob is seedDaily with a name.
func namedSeedJob(name string) string {
	return `{"name": "` + name + `", ` + strings.TrimSpace(seedDaily)[1:]
}

// secretJob is an hourly job whose basic authentication password
// ("hunter2") is a secret: stored sealed, never exported.
const secretJob = `{"name": "hook", "action": {"type": "http", "request": {"uri": "https://example.com/hook", "method": "POST",
 "authentication": {"type": "basic", "username": "u", "password": "hunter2"}}}, "recurrence": {"frequency": "hour"}}`

// runForTest runs the command line args as main does, with the
// environment env and stdin as its input, and returns the exit status and
// what the command wrote.
func runForTest(args []string, env map[string]string, stdin string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runCLI(context.Background(), args, stdio{
		in: strings.NewReader(stdin), out: &out, err: &errb,
		getenv: func(k string) string { return env[k] },
	})
	return code, out.String(), errb.String()
}

func TestCLIExitStatusTwoForBadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--listen", "nope"}, nil, "--listen"},
		{[]string{"serve", "--bogus"}, nil, "flag provided but not defined: -bogus"},
		{[]string{"migrate"}, map[string]string{"SKED_LOG_LEVEL": "chatty"}, "SKED_LOG_LEVEL"},
		{[]string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{[]string{"user"}, nil, "usage: sked user add"},
		{[]string{"user", "add"}, nil, "usage: sked user add"},
		{[]string{"token"}, nil, "usage: sked token add"},
		{[]string{"token", "add"}, nil, "usage: sked token add"},
		{[]string{"workspace", "create"}, nil, "usage: sked workspace add|list|rename|delete"},
		{[]string{"channel"}, nil, "usage: sked channel list|add|delete|test"},
		{[]string{"secrets"}, nil, "usage: sked secrets rotate"},
		{[]string{"jobs"}, nil, "usage: sked jobs list|show|run|backfill|history"},
	} {
		code, stdout, stderr := runForTest(tc.args, tc.env, "")
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q does not contain %q", tc.args, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q, want nothing", tc.args, stdout)
		}
	}
}

func TestCLIHelpListsEveryCommand(t *testing.T) {
	code, stdout, _ := runForTest([]string{"--help"}, nil, "")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"serve", "migrate", "preview", "user add", "token add", "workspace add", "audit list",
		"channel add", "alert add", "import", "export", "apply", "diff", "jobs list", "jobs history", "collections list", "targets set",
		"secrets rotate", "version", "help"} {
		if !strings.Contains(stdout, "\n  "+c+" ") {
			t.Errorf("help does not list %q:\n%s", c, stdout)
		}
	}
}

// TestBinaryStopsWithItsPostgreSQLOnSIGTERM builds the sked binary, serves
// with it and sends it SIGTERM: it exits with status 0 and its embedded
// PostgreSQL stops with it.
func TestBinaryStopsWithItsPostgreSQLOnSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sked")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dataDir := newDataDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "SKED_DATA_DIR="+dataDir, "SKED_LISTEN="+addr)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/setup")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("/setup: status %d", resp.StatusCode)
			}
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("sked exited early: %v\n%s", err, logs)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("sked did not serve within 90 s\n%s", logs)
		}
	}
	pgPID := pgserver.ServerPID(dataDir)
	if pgPID == 0 {
		t.Fatalf("no PostgreSQL runs (pid %d)", pgPID)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("sked exited with %v after SIGTERM\n%s", err, logs)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("sked did not stop within 60 s of SIGTERM\n%s", logs)
	}
	if pgserver.ServerPID(dataDir) != 0 {
		t.Errorf("PostgreSQL (pid %d) still runs after sked stopped\n%s", pgPID, logs)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "serve.lock")); err != nil {
		t.Errorf("serve.lock: %v", err)
	}
}
