package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// helperEnv makes the test binary act as another Sked process (see
// TestMain) instead of running tests.
const helperEnv = "PGSERVER_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Getenv("PGSERVER_TEST_DIR")))
	}
	os.Exit(m.Run())
}

// helper runs in a child process. It prints one line ("READY <pid>" or an
// error) and, for "open" and "testcluster", then waits to be killed.
func helper(mode, dir string) int {
	ctx := context.Background()
	switch mode {
	case "open":
		e, err := OpenEmbedded(ctx, dir, slog.New(slog.NewTextHandler(os.Stderr, nil)))
		if err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		fmt.Println("READY", postmasterPID(e.ClusterDir()))
	case "testcluster":
		c, err := StartTestCluster(ctx, dir)
		if err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		fmt.Println("READY", c.cmd.Process.Pid)
	case "lock":
		_, err := LockServe(dir)
		fmt.Println("LOCK", err)
		return 0
	default:
		fmt.Println("ERROR unknown mode", mode)
		return 2
	}
	select {} // until killed
}

// startHelper starts the test binary as a helper process and returns it with
// the first line it printed.
func startHelper(t *testing.T, mode, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "PGSERVER_TEST_DIR="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper %s: %v", mode, err)
	}
	return cmd, strings.TrimSpace(line)
}

// readyPID parses "READY <pid>".
func readyPID(t *testing.T, line string) int {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "READY ")
	pid, err := strconv.Atoi(rest)
	if !ok || err != nil || pid <= 0 {
		t.Fatalf("helper said %q", line)
	}
	return pid
}

// killHelper kills a helper process (SIGKILL: no cleanup runs) and reaps it.
func killHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// reachableTempDir returns a new temporary directory that other users (the
// postgres user, when the tests run as root) can enter: t.TempDir creates
// its directories with mode 0700.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logBuffer is a goroutine-safe log destination.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLogger(t *testing.T) (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// open opens the embedded server of dataDir, closing it when t ends.
func open(t *testing.T, dataDir string, logger *slog.Logger) *Embedded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("OpenEmbedded: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// connect opens dsn with the pgx driver, checks it with "select 1" and
// closes it when t ends.
func connect(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var one int
	if err := db.QueryRow("select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("select 1 on %s: %v (got %d)", dsn, err, one)
	}
	return db
}

// waitGone waits until pid is no longer a live process.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
