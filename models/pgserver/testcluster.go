package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// TestCluster is a throwaway PostgreSQL cluster for tests: durability is
// off (fsync, full_page_writes and synchronous_commit), it listens only on
// a unix socket in its directory, and it runs as a child process of the
// test binary that the kernel kills (SIGQUIT, PostgreSQL's immediate
// shutdown) when the test binary dies, however it dies. Stop it with Stop.
// Its methods are safe for concurrent use.
type TestCluster struct {
	dir  string
	bins Binaries
	su   serverUser
	log  *os.File

	mu   sync.Mutex // guards cmd and done, which Start replaces
	cmd  *exec.Cmd
	done chan struct{} // closed when the server process has exited

	stopOnce sync.Once
	stopErr  error
}

// StartTestCluster creates a cluster in dir (created if missing; it should
// be empty and is removed by Stop) with initdb --no-sync, starts
// `postgres -D dir/data` as a child process and returns once it accepts
// connections. The superuser is "sked" with trust authentication; the
// server log is dir/postgresql.log. When running as root the server runs
// as the "postgres" user and dir is given to it. ctx bounds only the start:
// the server keeps running after ctx ends, until Stop.
//
// The parent-death signal is tied to the thread that started the server;
// Go does not end threads unless a goroutine locked to one exits, so do
// not call StartTestCluster from a goroutine that called
// runtime.LockOSThread.
func StartTestCluster(ctx context.Context, dir string) (_ *TestCluster, err error) {
	bins, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	su, err := lookupServerUser()
	if err != nil {
		return nil, err
	}
	dir, err = testClusterDir(su, dir)
	if err != nil {
		return nil, err
	}
	if err := initdb(ctx, su, bins, filepath.Join(dir, "data"), "--no-sync"); err != nil {
		return nil, err
	}
	return startTestCluster(ctx, bins, su, dir)
}

// testClusterDir makes dir (absolute) a directory the server user owns and
// can reach, whose socket path is short enough.
func testClusterDir(su serverUser, dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("pgserver: test cluster: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("pgserver: test cluster: %w", err)
	}
	if err := su.mkdirOwned(dir); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("pgserver: test cluster: %w", err)
	}
	if blocked, err := su.firstUnsearchable(real); err != nil {
		return "", err
	} else if blocked != "" {
		return "", &wrapped{err: ErrUnreachable, msg: fmt.Sprintf(
			"pgserver: test cluster: PostgreSQL runs as the %s user, which cannot enter %s (%s): put the cluster elsewhere (for example set TMPDIR=/tmp) or set TEST_DATABASE_URL",
			su.name, blocked, describeDir(blocked))}
	}
	if _, err := socketPath(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// startTestCluster starts the cluster in dir/data.
func startTestCluster(ctx context.Context, bins Binaries, su serverUser, dir string) (*TestCluster, error) {
	logPath := filepath.Join(dir, logName)
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgserver: test cluster: %w", err)
	}
	c := &TestCluster{dir: dir, bins: bins, su: su, log: logFile}
	if err := c.start(ctx); err != nil {
		logFile.Close()
		return nil, err
	}
	return c, nil
}

// start runs the server process of the cluster and returns once it
// accepts connections; on failure the process is stopped.
func (c *TestCluster) start(ctx context.Context) error {
	// Not CommandContext: ctx bounds the start, not the server's life.
	cmd := exec.Command(c.bins.Path("postgres"), "-D", filepath.Join(c.dir, "data"),
		"-k", c.dir,
		"-c", "listen_addresses=",
		"-c", fmt.Sprintf("port=%d", port),
		"-c", "unix_socket_permissions=0700",
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "synchronous_commit=off",
	)
	cmd.Dir = "/"
	cmd.Env = c.su.env(c.bins)
	cmd.Stdout = c.log
	cmd.Stderr = c.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if c.su.switched {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.su.uid, Gid: c.su.gid, Groups: c.su.groups}
	}
	logPath := filepath.Join(c.dir, logName)
	offset := fileSize(logPath)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgserver: test cluster: start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	c.mu.Lock()
	c.cmd, c.done = cmd, done
	c.mu.Unlock()
	socket, err := socketPath(c.dir)
	if err == nil {
		err = waitReady(ctx, socket, 60*time.Second, done)
	}
	if err != nil {
		c.halt()
		if t := logTail(logPath, offset); t != "" {
			return fmt.Errorf("pgserver: test cluster: %w; %s says: %s", err, logPath, t)
		}
		return fmt.Errorf("pgserver: test cluster: %w", err)
	}
	return nil
}

// Dir returns the cluster's directory, which also holds its socket.
func (c *TestCluster) Dir() string { return c.dir }

// DSN returns the keyword/value connection string of database dbname as
// the superuser "sked": host=<dir> port=5432 user=sked dbname=<dbname>
// sslmode=disable.
func (c *TestCluster) DSN(dbname string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dsnQuote(c.dir), port, superuser, dsnQuote(dbname))
}

// Stop shuts the server down (fast shutdown: open sessions are ended),
// waits for it to exit and removes the cluster's directory. It is safe to
// call more than once; later calls return the first call's result.
func (c *TestCluster) Stop() error {
	c.stopOnce.Do(func() {
		c.halt()
		c.log.Close()
		if err := os.RemoveAll(c.dir); err != nil {
			c.stopErr = fmt.Errorf("pgserver: test cluster: %w", err)
		}
	})
	return c.stopErr
}

// Halt stops the server (fast shutdown: open sessions are ended) and
// waits for it to exit, keeping the cluster's files, so that Start can
// run it again: a test's way to take the database away and bring it
// back. Halting a halted cluster does nothing.
func (c *TestCluster) Halt() { c.halt() }

// Start runs the server of a halted cluster again and returns once it
// accepts connections (ctx bounds the wait). Starting a running cluster is
// an error (its socket is taken).
func (c *TestCluster) Start(ctx context.Context) error { return c.start(ctx) }

// halt stops the server process: SIGINT (fast shutdown), then SIGQUIT
// (immediate) after 30 s, then SIGKILL after 10 s more.
func (c *TestCluster) halt() {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 30 * time.Second}, {syscall.SIGQUIT, 10 * time.Second}, {syscall.SIGKILL, time.Minute}} {
		if err := cmd.Process.Signal(step.sig); err != nil && errors.Is(err, os.ErrProcessDone) {
			<-done
			return
		}
		select {
		case <-done:
			return
		case <-time.After(step.wait):
		}
	}
}
