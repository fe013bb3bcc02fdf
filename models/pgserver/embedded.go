package pgserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Names inside a data directory (and inside a relocated cluster's base).
const (
	clusterName     = "pg"              // the cluster (PGDATA), or a symlink to it
	socketDirName   = "pgsocket"        // the private socket directory, next to the cluster
	logName         = "postgresql.log"  // the server's log, next to the cluster
	controlLockName = "pg.control.lock" // exclusive while starting or stopping
	usersLockName   = "pg.users.lock"   // shared by every open Embedded
	databaseName    = "sked"            // the database Sked uses
)

// testHookAfterStart, when set, runs after OpenEmbedded started the server;
// its error makes OpenEmbedded fail (tests check the clean-up).
var testHookAfterStart func() error

// clusterRoot is where the cluster goes when Sked runs as root and the
// postgres user cannot enter the data directory. A variable for tests.
var clusterRoot = "/var/lib/sked/clusters"

// Embedded is the embedded default database of one Sked data directory: a
// PostgreSQL cluster in <data dir>/pg, listening only on a unix socket in a
// private directory (<data dir>/pgsocket, mode 0700), started on demand with
// pg_ctl as a daemon and shared by every Sked process using the data
// directory. The last of them to close it stops it.
//
// An Embedded is created by OpenEmbedded and must be closed with Close. Its
// methods are safe for concurrent use.
type Embedded struct {
	dataDir    string
	clusterDir string
	socketDir  string
	socket     string
	logFile    string
	bins       Binaries
	user       serverUser
	logger     *slog.Logger

	mu    sync.Mutex
	users *os.File // the shared lock on pg.users.lock; nil once closed
}

// OpenEmbedded opens the embedded PostgreSQL of the data directory dataDir
// (created, mode 0755, if missing), starting it unless another Sked process
// already runs it, and returns once the database "sked" accepts
// connections at DSN.
//
// On first start it runs initdb into <dataDir>/pg (superuser "sked", trust
// authentication, UTF8, locale C) and makes the server listen on no TCP
// address, only on the socket in the private socket directory; trust
// authentication is acceptable because only the owner of that directory
// (and root) can connect. It creates the database "sked" when missing.
//
// When running as root it runs the PostgreSQL programs as the "postgres"
// user, which PostgreSQL requires. If that user cannot enter the data
// directory (such as one under /root), the cluster, socket directory and
// log go to /var/lib/sked/clusters/<hash>/ and <dataDir>/pg becomes a
// symbolic link to the cluster there (a warning says so); later starts
// follow the link.
//
// Processes sharing a data directory coordinate with two lock files in it:
// pg.control.lock (exclusive, only while deciding to start or stop) and
// pg.users.lock (shared, for as long as the Embedded is open). A server left
// running by a killed Sked is adopted; a stale postmaster.pid is left to
// PostgreSQL. On any error OpenEmbedded stops a server it started and
// releases its locks. ctx bounds the whole start, including waiting for
// another process that is starting or stopping the server. A nil logger
// means slog.Default().
func OpenEmbedded(ctx context.Context, dataDir string, logger *slog.Logger) (_ *Embedded, err error) {
	if logger == nil {
		logger = slog.Default()
	}
	if dataDir == "" {
		return nil, errors.New("pgserver: empty data directory")
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: data directory: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("pgserver: data directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("pgserver: data directory: %w", err)
	}
	bins, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	su, err := lookupServerUser()
	if err != nil {
		return nil, err
	}
	e := &Embedded{dataDir: abs, bins: bins, user: su, logger: logger.With("data_dir", abs)}

	control, err := lockFile(ctx, filepath.Join(abs, controlLockName), unix.LOCK_EX, e.logger)
	if err != nil {
		return nil, fmt.Errorf("pgserver: lock %s: %w", controlLockName, err)
	}
	defer control.Close() // releases the lock
	users, err := lockFile(ctx, filepath.Join(abs, usersLockName), unix.LOCK_SH, e.logger)
	if err != nil {
		return nil, fmt.Errorf("pgserver: lock %s: %w", usersLockName, err)
	}
	started := false
	defer func() {
		if err == nil {
			return
		}
		if started {
			if serr := e.stop(ctx); serr != nil {
				e.logger.Error("could not stop PostgreSQL after a failed start", "err", serr)
			}
		}
		users.Close()
	}()

	if err := e.resolveLayout(real); err != nil {
		return nil, err
	}
	if e.socket, err = socketPath(e.socketDir); err != nil {
		return nil, err
	}
	e.logger = e.logger.With("cluster", e.clusterDir, "socket_dir", e.socketDir)

	exists, version, err := hasCluster(e.clusterDir)
	if err != nil {
		return nil, err
	}
	if exists && version != bins.Version {
		b, ok := findBinariesVersion(bins, version)
		if !ok {
			return nil, &wrapped{err: ErrVersionMismatch, msg: fmt.Sprintf(
				"pgserver: the cluster %s was created by PostgreSQL %s, but the server binaries found (%s) are PostgreSQL %s: install PostgreSQL %s (apt-get install postgresql-%s) or upgrade the cluster with pg_upgrade",
				e.clusterDir, version, bins.Dir, bins.Version, version, version)}
		}
		e.bins = b
	}

	if pid, ok := e.running(ctx); ok {
		e.logger.Info("using the embedded PostgreSQL already running", "pid", pid)
	} else {
		if !exists {
			e.logger.Info("creating the embedded PostgreSQL cluster", "version", e.bins.Version, "user", su.String())
			if err := initdb(ctx, su, e.bins, e.clusterDir); err != nil {
				return nil, err
			}
		}
		if err := configure(su, e.clusterDir, e.socketDir); err != nil {
			return nil, err
		}
		started = true // from here on a failure must stop whatever came up
		if err := pgCtlStart(ctx, su, e.bins, e.clusterDir, e.logFile); err != nil {
			return nil, err
		}
		e.logger.Info("started the embedded PostgreSQL", "pid", postmasterPID(e.clusterDir), "log", e.logFile)
		if testHookAfterStart != nil {
			if err := testHookAfterStart(); err != nil {
				return nil, err
			}
		}
	}
	if err := e.ensureDatabase(ctx); err != nil {
		return nil, err
	}
	e.users = users
	return e, nil
}

// DSN returns the keyword/value connection string of the database "sked"
// (for pgx or lib/pq): host=<socket dir> port=5432 user=sked dbname=sked
// sslmode=disable.
func (e *Embedded) DSN() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dsnQuote(e.socketDir), port, superuser, databaseName)
}

// SocketDir returns the directory holding the server's unix socket.
func (e *Embedded) SocketDir() string { return e.socketDir }

// ClusterDir returns the cluster directory (PGDATA), with symbolic links
// resolved.
func (e *Embedded) ClusterDir() string { return e.clusterDir }

// LogFile returns the path of the server's log file.
func (e *Embedded) LogFile() string { return e.logFile }

// Close stops using the embedded PostgreSQL and stops the server if no
// other Embedded (in this or another process) has it open. It is safe to
// call more than once; later calls return nil.
//
// Close finishes even when ctx is already cancelled, since an interrupted
// Close would leave the server running after Sked exits; it gives up after
// about two minutes (a fast shutdown normally takes well under a second).
func (e *Embedded) Close(ctx context.Context) error {
	e.mu.Lock()
	users := e.users
	e.users = nil
	e.mu.Unlock()
	if users == nil {
		return nil
	}
	defer users.Close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	control, err := lockFile(ctx, filepath.Join(e.dataDir, controlLockName), unix.LOCK_EX, e.logger)
	if err != nil {
		return fmt.Errorf("pgserver: close: lock %s: %w", controlLockName, err)
	}
	defer control.Close()
	fd := int(users.Fd())
	if err := unix.Flock(fd, unix.LOCK_UN); err != nil {
		return fmt.Errorf("pgserver: close: unlock %s: %w", usersLockName, err)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			e.logger.Info("leaving the embedded PostgreSQL running for the other Sked processes using it")
			return nil
		}
		return fmt.Errorf("pgserver: close: lock %s: %w", usersLockName, err)
	}
	return e.stop(ctx)
}

// stop stops the server if it runs.
func (e *Embedded) stop(ctx context.Context) error {
	pid := postmasterPID(e.clusterDir)
	if pid == 0 || !processAlive(pid) {
		return nil
	}
	if err := pgCtlStop(ctx, e.user, e.bins, e.clusterDir); err != nil {
		return err
	}
	e.logger.Info("stopped the embedded PostgreSQL", "pid", pid)
	return nil
}

// running reports whether a server accepting connections runs on the
// socket, and its pid. A server that is up but not yet ready (recovering
// after a crash) is waited for.
func (e *Embedded) running(ctx context.Context) (int, bool) {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := ping(pctx, e.socket, superuser, "postgres")
	cancel()
	pid := postmasterPID(e.clusterDir)
	if err == nil {
		return pid, true
	}
	if pid == 0 || !isPostgres(pid) {
		return 0, false
	}
	e.logger.Info("waiting for the running PostgreSQL to accept connections", "pid", pid)
	if err := waitReady(ctx, e.socket, 30*time.Second, nil); err != nil {
		// Let pg_ctl start try; PostgreSQL says what is wrong.
		return 0, false
	}
	return pid, true
}

// isPostgres reports whether pid is a live postgres process (so a stale
// postmaster.pid naming a reused pid is not mistaken for a server).
func isPostgres(pid int) bool {
	if !processAlive(pid) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true
	}
	return strings.Contains(string(b), "postgres")
}

// ensureDatabase creates the database "sked" when missing.
func (e *Embedded) ensureDatabase(ctx context.Context) error {
	ok, err := databaseExists(ctx, e.socket, databaseName)
	if err != nil {
		return fmt.Errorf("pgserver: connect to %s: %w", e.socket, err)
	}
	if ok {
		return nil
	}
	err = execSQL(ctx, e.socket, superuser, "postgres", "CREATE DATABASE "+databaseName)
	if err != nil && !isCode(err, codeDuplicateDatabase) {
		return fmt.Errorf("pgserver: create database %s: %w", databaseName, err)
	}
	e.logger.Info("created database", "database", databaseName)
	return nil
}

// resolveLayout decides where the cluster, socket directory and log file
// are (relocating them when the server user cannot enter the data
// directory), and creates the directories. real is the data directory with
// symbolic links resolved.
func (e *Embedded) resolveLayout(real string) error {
	link := filepath.Join(e.dataDir, clusterName)
	var base, cluster string
	fi, err := os.Lstat(link)
	switch {
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(link)
		if err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(e.dataDir, target)
		}
		cluster = filepath.Clean(target)
		base = filepath.Dir(cluster)
		if _, err := os.Stat(base); errors.Is(err, fs.ErrNotExist) && e.user.switched && filepath.Dir(base) == clusterRoot {
			e.logger.Warn("the relocated cluster directory is missing; creating a new, empty cluster", "cluster", cluster)
			if err := e.makeRelocatedBase(base); err != nil {
				return err
			}
		}
	case err == nil && !fi.IsDir():
		return fmt.Errorf("pgserver: %s exists and is neither the cluster directory nor a link to it", link)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("pgserver: %w", err)
	default: // missing, or a directory
		base, cluster = e.dataDir, link
		if !e.user.switched || (err == nil && !isEmptyDir(link)) {
			break
		}
		blocked, err2 := e.user.firstUnsearchable(real)
		if err2 != nil {
			return err2
		}
		if blocked == "" {
			break
		}
		if err == nil {
			if err := os.Remove(link); err != nil {
				return fmt.Errorf("pgserver: %w", err)
			}
		}
		sum := sha256.Sum256([]byte(real))
		base = filepath.Join(clusterRoot, hex.EncodeToString(sum[:8]))
		cluster = filepath.Join(base, clusterName)
		if err := e.makeRelocatedBase(base); err != nil {
			return err
		}
		if err := os.Symlink(cluster, link); err != nil {
			return fmt.Errorf("pgserver: link the relocated cluster: %w", err)
		}
		e.logger.Warn(fmt.Sprintf("the %s user cannot enter %s (%s), so the embedded PostgreSQL cluster lives in %s instead; %s links to it",
			e.user.name, blocked, describeDir(blocked), cluster, link), "cluster", cluster, "link", link)
	}

	if e.user.switched {
		realBase, err := filepath.EvalSymlinks(base)
		if err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
		blocked, err := e.user.firstUnsearchable(realBase)
		if err != nil {
			return err
		}
		if blocked != "" {
			return &wrapped{err: ErrUnreachable, msg: fmt.Sprintf(
				"pgserver: PostgreSQL runs as the %s user, which cannot enter %s (%s) and so cannot use the cluster %s: allow it in (chmod o+x %s), or move the data directory to a path it can enter, or set SKED_DATABASE_URL",
				e.user.name, blocked, describeDir(blocked), cluster, blocked)}
		}
	}

	e.clusterDir = cluster
	e.socketDir = filepath.Join(base, socketDirName)
	e.logFile = filepath.Join(base, logName)
	if _, err := os.Stat(cluster); errors.Is(err, fs.ErrNotExist) {
		if err := e.user.mkdirOwned(cluster); err != nil {
			return err
		}
	}
	if err := e.user.mkdirOwned(e.socketDir); err != nil {
		return err
	}
	f, err := os.OpenFile(e.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgserver: log file: %w", err)
	}
	f.Close()
	return e.user.chown(e.logFile)
}

// makeRelocatedBase creates clusterRoot (and its parents, mode 0755) and
// base in it (mode 0700, owned by the server user).
func (e *Embedded) makeRelocatedBase(base string) error {
	if err := mkdirAll0755(clusterRoot); err != nil {
		return err
	}
	return e.user.mkdirOwned(base)
}

// mkdirAll0755 creates dir and its missing parents with mode 0755
// regardless of the umask.
func mkdirAll0755(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll0755(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// isEmptyDir reports whether dir is an empty directory.
func isEmptyDir(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

// lockFile opens (creating it if needed) path and takes an flock on it (how
// is unix.LOCK_EX or unix.LOCK_SH), waiting until it is granted or ctx
// ends; logger (which may be nil) says so when the wait is long. Closing
// the returned file releases the lock.
func lockFile(ctx context.Context, path string, how int, logger *slog.Logger) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	begin, logged := time.Now(), false
	delay := 5 * time.Millisecond
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, err
		}
		if !logged && logger != nil && time.Since(begin) > 2*time.Second {
			logger.Info("waiting for another Sked process to finish starting or stopping PostgreSQL", "lock", path)
			logged = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// dsnQuote quotes a keyword/value connection string value when needed.
func dsnQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, ` '\`+"\t\n") {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
