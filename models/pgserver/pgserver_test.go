package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFindBinaries(t *testing.T) {
	b, err := FindBinaries()
	if err != nil {
		t.Fatalf("FindBinaries: %v", err)
	}
	for _, name := range serverPrograms {
		if _, err := os.Stat(b.Path(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if b.Version == "" || strings.Contains(b.Dir, "/usr/local/bin") && isSymlink("/usr/local/bin/initdb") {
		t.Errorf("FindBinaries = %+v, want a resolved directory and a version", b)
	}
	t.Logf("found %+v", b)
}

func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// TestFindBinariesMissing changes PATH and libGlob, so it must not run in
// parallel with tests that look for binaries.
func TestFindBinariesMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := libGlob
	libGlob = filepath.Join(t.TempDir(), "*", "bin")
	defer func() { libGlob = old }()
	_, err := FindBinaries()
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	for _, want := range []string{"apt-get install postgresql", "SKED_DATABASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestVersions(t *testing.T) {
	for out, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)": "15",
		"postgres (PostgreSQL) 9.6.24":                         "9.6",
		"postgres (PostgreSQL) 17beta1":                        "17",
	} {
		if got, err := majorVersion(out); err != nil || got != want {
			t.Errorf("majorVersion(%q) = %q, %v; want %q", out, got, err, want)
		}
	}
	if !versionLess("9.6", "10") || versionLess("15", "9.6") || !versionLess("14", "15") {
		t.Error("versionLess is not numeric")
	}
}

func TestEmbeddedShareCloseReopen(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	logger, logs := newLogger(t)
	ctx := context.Background()

	e1, err := OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("OpenEmbedded: %v", err)
	}
	want := fmt.Sprintf("host=%s port=5432 user=sked dbname=sked sslmode=disable", filepath.Join(dataDir, "pgsocket"))
	if e1.DSN() != want {
		t.Errorf("DSN = %q, want %q", e1.DSN(), want)
	}
	db1 := connect(t, e1.DSN())
	var listen string
	if err := db1.QueryRow("show listen_addresses").Scan(&listen); err != nil || listen != "" {
		t.Errorf("listen_addresses = %q, %v; want empty (unix socket only)", listen, err)
	}
	if fi, err := os.Stat(e1.SocketDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if _, err := db1.Exec("create table marker (x int); insert into marker values (42)"); err != nil {
		t.Fatal(err)
	}
	db1.Close()
	pid := postmasterPID(e1.ClusterDir())
	if !processAlive(pid) {
		t.Fatalf("postmaster pid %d not alive", pid)
	}

	// A second user shares the running server.
	e2, err := OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("second OpenEmbedded: %v", err)
	}
	if got := postmasterPID(e2.ClusterDir()); got != pid {
		t.Errorf("second open: postmaster pid %d, want the shared %d", got, pid)
	}
	if err := e1.Close(ctx); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := e1.Close(ctx); err != nil {
		t.Errorf("second Close of the same Embedded: %v", err)
	}
	if !processAlive(pid) {
		t.Fatal("server stopped although a user remains")
	}
	connect(t, e2.DSN()).Close()
	if err := e2.Close(ctx); err != nil {
		t.Fatalf("last Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e2.ClusterDir(), "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after the last Close: %v", err)
	}
	waitGone(t, pid)

	// Reopening starts the same cluster again, without initdb.
	e3 := open(t, dataDir, logger)
	var x int
	if err := connect(t, e3.DSN()).QueryRow("select x from marker").Scan(&x); err != nil || x != 42 {
		t.Errorf("marker after reopen = %d, %v; want 42", x, err)
	}
	if n := strings.Count(logs.String(), "creating the embedded PostgreSQL cluster"); n != 1 {
		t.Errorf("initdb ran %d times, want 1", n)
	}
	for _, key := range []string{"data_dir=", "cluster=", "socket_dir=", "pid="} {
		if !strings.Contains(logs.String(), key) {
			t.Errorf("log lacks %s", key)
		}
	}
}

// TestEmbeddedAcrossProcesses: another process's server is shared, survives
// this process's Close, is left running when that process is killed, and
// is adopted and stopped by the next user.
func TestEmbeddedAcrossProcesses(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	logger, logs := newLogger(t)
	ctx := context.Background()

	child, line := startHelper(t, "open", dataDir)
	pid := readyPID(t, line)

	e, err := OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("OpenEmbedded: %v", err)
	}
	if got := postmasterPID(e.ClusterDir()); got != pid {
		t.Errorf("postmaster pid %d, want the other process's %d", got, pid)
	}
	connect(t, e.DSN()).Close()
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !processAlive(pid) {
		t.Fatal("Close stopped a server another process uses")
	}

	killHelper(t, child)
	if !processAlive(pid) {
		t.Fatal("server died with the killed process; it is a daemon and should be left for adoption")
	}
	e, err = OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("OpenEmbedded after kill: %v", err)
	}
	if got := postmasterPID(e.ClusterDir()); got != pid {
		t.Errorf("after kill: postmaster pid %d, want the adopted %d", got, pid)
	}
	if !strings.Contains(logs.String(), "already running") {
		t.Error("log does not say the running server was adopted")
	}
	connect(t, e.DSN()).Close()
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

func TestEmbeddedSocketPathTooLong(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), strings.Repeat("d", 110))
	_, err := OpenEmbedded(context.Background(), dataDir, nil)
	if !errors.Is(err, ErrSocketPathTooLong) || !strings.Contains(err.Error(), "107") {
		t.Fatalf("err = %v, want ErrSocketPathTooLong", err)
	}
	// The locks were released: an exclusive lock on the users file is free.
	f, err := lockFile(context.Background(), filepath.Join(dataDir, usersLockName), syscall.LOCK_EX|syscall.LOCK_NB, nil)
	if err != nil {
		t.Fatalf("users lock still held: %v", err)
	}
	f.Close()
}

// TestLockServe checks that one data directory is served by one process
// at a time. It does not run in parallel: a flock belongs to the open
// file, and a process that another test forks at the same moment holds a
// copy of the lock's descriptor until it execs, so the lock could still
// be held just after Release.
func TestLockServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	l, err := LockServe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`another "sked serve" is already running on data directory %s (pid %d)`, dir, os.Getpid())
	_, err = LockServe(dir)
	if !errors.Is(err, ErrServeRunning) || err.Error() != want {
		t.Errorf("second LockServe: %v\nwant %s", err, want)
	}
	_, line := startHelper(t, "lock", dir)
	if line != "LOCK "+want {
		t.Errorf("LockServe in another process: %q\nwant %q", line, "LOCK "+want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l, err = LockServe(dir)
	if err != nil {
		t.Fatalf("LockServe after Release: %v", err)
	}
	l.Release()
}

// TestEmbeddedRelocated: running as root with the data directory under a
// directory the postgres user cannot enter (like /root), the cluster goes
// to /var/lib/sked/clusters/<hash> and <data dir>/pg links to it.
func TestEmbeddedRelocated(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("relocation only happens when running as root")
	}
	t.Parallel()
	locked := filepath.Join(reachableTempDir(t), "root-like")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(locked, "data")
	logger, logs := newLogger(t)
	ctx := context.Background()

	e, err := OpenEmbedded(ctx, dataDir, logger)
	if err != nil {
		t.Fatalf("OpenEmbedded: %v", err)
	}
	link := filepath.Join(dataDir, "pg")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatalf("%s is not a symlink: %v", link, err)
	}
	base := filepath.Dir(target)
	t.Cleanup(func() {
		if filepath.Dir(base) == clusterRoot {
			os.RemoveAll(base)
		}
	})
	if filepath.Dir(base) != clusterRoot || e.ClusterDir() != target {
		t.Fatalf("cluster %s (link to %s), want one in %s", e.ClusterDir(), target, clusterRoot)
	}
	fi, err := os.Stat(base)
	if err != nil || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != e.user.uid {
		t.Errorf("%s: %v, %v; want mode 0700 owned by postgres", base, fi.Mode(), err)
	}
	warn := logs.String()
	if !strings.Contains(warn, "level=WARN") || !strings.Contains(warn, locked) || !strings.Contains(warn, target) {
		t.Errorf("no WARN naming %s and %s:\n%s", locked, target, warn)
	}
	db := connect(t, e.DSN())
	if _, err := db.Exec("create table marker (x int)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	pid := postmasterPID(e.ClusterDir())
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)

	// The next start follows the link to the same cluster.
	e = open(t, dataDir, logger)
	if e.ClusterDir() != target {
		t.Errorf("reopen: cluster %s, want %s", e.ClusterDir(), target)
	}
	if _, err := connect(t, e.DSN()).Exec("select * from marker"); err != nil {
		t.Errorf("reopen lost the data: %v", err)
	}
}

func TestStartTestCluster(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "sked-testpg-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := StartTestCluster(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("StartTestCluster: %v", err)
	}
	cancel() // the server outlives the start context
	db := connect(t, c.DSN("postgres"))
	for _, setting := range []string{"fsync", "full_page_writes", "synchronous_commit"} {
		var v string
		if err := db.QueryRow("show " + setting).Scan(&v); err != nil || v != "off" {
			t.Errorf("%s = %q, %v; want off", setting, v, err)
		}
	}
	if _, err := db.Exec("create database other"); err != nil {
		t.Fatal(err)
	}
	connect(t, c.DSN("other")).Close()
	db.Close()
	pid := c.cmd.Process.Pid
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	waitGone(t, pid)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster directory after Stop: %v", err)
	}
}

// TestTestClusterDiesWithParent: a killed test binary takes its cluster
// with it.
func TestTestClusterDiesWithParent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(reachableTempDir(t), "pg")
	child, line := startHelper(t, "testcluster", dir)
	pid := readyPID(t, line)
	killHelper(t, child)
	waitGone(t, pid)
}

// TestEmbeddedFailureStopsServer: when OpenEmbedded fails after starting
// the server, it stops it and releases its locks. Not parallel: it sets a
// package hook.
func TestEmbeddedFailureStopsServer(t *testing.T) {
	dataDir := filepath.Join(reachableTempDir(t), "data")
	logger, _ := newLogger(t)
	var pid int
	var clusterDir string
	boom := errors.New("boom")
	testHookAfterStart = func() error {
		clusterDir = filepath.Join(dataDir, "pg")
		pid = postmasterPID(clusterDir)
		return boom
	}
	defer func() { testHookAfterStart = nil }()
	_, err := OpenEmbedded(context.Background(), dataDir, logger)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the hook's error", err)
	}
	if pid == 0 {
		t.Fatal("the server had not started")
	}
	waitGone(t, pid)
	if _, err := os.Stat(filepath.Join(clusterDir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after the failed open: %v", err)
	}
	for _, name := range []string{controlLockName, usersLockName} {
		f, err := lockFile(context.Background(), filepath.Join(dataDir, name), syscall.LOCK_EX|syscall.LOCK_NB, logger)
		if err != nil {
			t.Errorf("%s still locked: %v", name, err)
			continue
		}
		f.Close()
	}
}

// TestEmbeddedConcurrentOpen: users opening at once get one cluster and
// one server.
func TestEmbeddedConcurrentOpen(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	logger, logs := newLogger(t)
	const n = 3
	errs := make(chan error, n)
	opened := make(chan *Embedded, n)
	for range n {
		go func() {
			e, err := OpenEmbedded(context.Background(), dataDir, logger)
			errs <- err
			opened <- e
		}()
	}
	var all []*Embedded
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if e := <-opened; e != nil {
			all = append(all, e)
		}
	}
	if n := strings.Count(logs.String(), "started the embedded PostgreSQL"); n != 1 {
		t.Errorf("started %d times, want 1", n)
	}
	if len(all) == 0 {
		t.FailNow()
	}
	pid := postmasterPID(all[0].ClusterDir())
	for _, e := range all {
		connect(t, e.DSN()).Close()
		if err := e.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}
	waitGone(t, pid)
}
