package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// poolerPort only names the pooler's socket file (.s.PGSQL.6432): a test
// pooler listens on no TCP port, and each has a private socket directory,
// so that no two can collide.
const poolerPort = 6432

// TestPooler is a throwaway PgBouncer in transaction mode (pool_mode =
// transaction) for tests, in front of a PostgreSQL server: every database
// of the server is reachable through it under its own name, and the
// transactions of its clients share at most PoolSize server connections
// per database, so that consecutive transactions of one client
// connection really run on different server connections. It listens only
// on a unix socket in its directory, trusts its clients (the user must be
// the server's), and runs as a child process of the test binary that the
// kernel ends (SIGTERM) when the test binary dies. When running as root
// it runs as the "postgres" user, as the test cluster does (PgBouncer
// refuses to run as root). Its methods are safe for concurrent use.
type TestPooler struct {
	dir, user string
	cmd       *exec.Cmd
	done      chan struct{} // closed when the pooler process has exited
	log       *os.File

	stopOnce sync.Once
	stopErr  error
}

// FindPgBouncer returns the path of the pgbouncer program: the one in
// PATH, else Debian's /usr/sbin/pgbouncer. The error, wrapping
// ErrNoPgBouncer, says how to install it.
func FindPgBouncer() (string, error) {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	const debian = "/usr/sbin/pgbouncer"
	if fi, err := os.Stat(debian); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return debian, nil
	}
	return "", &wrapped{err: ErrNoPgBouncer, msg: "pgserver: pgbouncer not found in PATH or /usr/sbin: install it with " +
		"`apt-get install pgbouncer` (`scripts/install-deps.sh test` does)"}
}

// StartTestPooler creates dir (created if missing; it should be empty and
// is removed by Stop), writes a PgBouncer configuration there for the
// server that upstream (a DSN of any of its databases, with the user and
// password PgBouncer logs in with) names, starts pgbouncer as a child
// process and returns once it accepts connections. poolSize is PgBouncer's
// default_pool_size: how many server connections each database's clients
// share. The pooler's log is dir/pgbouncer.log. ctx bounds only the
// start: the pooler keeps running after ctx ends, until Stop.
//
// As with StartTestCluster, do not call it from a goroutine that called
// runtime.LockOSThread (the parent-death signal is tied to the thread).
func StartTestPooler(ctx context.Context, dir, upstream string, poolSize int) (_ *TestPooler, err error) {
	bin, err := FindPgBouncer()
	if err != nil {
		return nil, err
	}
	up, err := pgconn.ParseConfig(upstream)
	if err != nil {
		return nil, fmt.Errorf("pgserver: test pooler: upstream: %w", err)
	}
	su, err := lookupServerUser()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: test pooler: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pgserver: test pooler: %w", err)
	}
	if err := su.mkdirOwned(dir); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: test pooler: %w", err)
	}
	if blocked, err := su.firstUnsearchable(real); err != nil {
		return nil, err
	} else if blocked != "" {
		return nil, &wrapped{err: ErrUnreachable, msg: fmt.Sprintf(
			"pgserver: test pooler: PgBouncer runs as the %s user, which cannot enter %s (%s): put it elsewhere (for example set TMPDIR=/tmp)",
			su.name, blocked, describeDir(blocked))}
	}
	socket := filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", poolerPort))
	if len(socket) > maxSocketPath {
		return nil, &wrapped{err: ErrSocketPathTooLong, msg: fmt.Sprintf(
			"pgserver: test pooler: the socket path %s is %d bytes long, but unix sockets allow at most %d: set TMPDIR to a shorter directory",
			socket, len(socket), maxSocketPath)}
	}
	host := up.Host
	server := fmt.Sprintf("host=%s port=%d user=%s", poolerValue(host), up.Port, poolerValue(up.User))
	if up.Password != "" {
		server += " password=" + poolerValue(up.Password)
	}
	ini := fmt.Sprintf(`[databases]
* = %s

[pgbouncer]
unix_socket_dir = %s
unix_socket_mode = 0777
listen_port = %d
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 2000
ignore_startup_parameters = extra_float_digits,options
server_lifetime = 3600
server_idle_timeout = 60
`, server, dir, poolerPort, filepath.Join(dir, "userlist.txt"), poolSize)
	files := map[string]string{
		"pgbouncer.ini": ini,
		// Trust still needs the user listed; the password is not checked.
		"userlist.txt": fmt.Sprintf("%q \"\"\n", up.User),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return nil, fmt.Errorf("pgserver: test pooler: %w", err)
		}
		if err := su.chown(p); err != nil {
			return nil, err
		}
	}
	logPath := filepath.Join(dir, "pgbouncer.log")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgserver: test pooler: %w", err)
	}
	// Not CommandContext: ctx bounds the start, not the pooler's life.
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	cmd.Dir = "/"
	cmd.Env = su.env(Binaries{Dir: filepath.Dir(bin)})
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if su.switched {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: su.uid, Gid: su.gid, Groups: su.groups}
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("pgserver: test pooler: start pgbouncer: %w", err)
	}
	p := &TestPooler{dir: dir, user: up.User, cmd: cmd, done: make(chan struct{}), log: logFile}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, socket, up.Database); err != nil {
		p.halt()
		logFile.Close()
		if t := logTail(logPath, 0); t != "" {
			return nil, fmt.Errorf("pgserver: test pooler: %w; %s says: %s", err, logPath, t)
		}
		return nil, fmt.Errorf("pgserver: test pooler: %w", err)
	}
	return p, nil
}

// poolerValue quotes a value of a PgBouncer connection string when it
// holds a space or a quote.
func poolerValue(s string) string {
	if !strings.ContainsAny(s, ` '\`) && s != "" {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// waitReady polls the pooler on socket until a connection through it to
// database reaches the server, for at most 30 s, until ctx ends or the
// pooler exits.
func (p *TestPooler) waitReady(ctx context.Context, socket, database string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	delay := 20 * time.Millisecond
	for {
		err := ping(ctx, socket, p.user, database)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return errors.New("pgbouncer exited")
		case <-ctx.Done():
			return fmt.Errorf("pgbouncer not accepting connections on %s: %v", socket, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// Dir returns the pooler's directory, which also holds its socket.
func (p *TestPooler) Dir() string { return p.dir }

// DSN returns the keyword/value connection string of database dbname
// through the pooler, as the server's user: host=<dir> port=6432
// user=<user> dbname=<dbname> sslmode=disable.
func (p *TestPooler) DSN(dbname string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dsnQuote(p.dir), poolerPort,
		dsnQuote(p.user), dsnQuote(dbname))
}

// Stop shuts the pooler down (immediately: open client connections are
// closed), waits for it to exit and removes its directory. It is safe to
// call more than once; later calls return the first call's result.
func (p *TestPooler) Stop() error {
	p.stopOnce.Do(func() {
		p.halt()
		p.log.Close()
		if err := os.RemoveAll(p.dir); err != nil {
			p.stopErr = fmt.Errorf("pgserver: test pooler: %w", err)
		}
	})
	return p.stopErr
}

// halt stops the pooler process: SIGTERM (PgBouncer's immediate
// shutdown), then SIGKILL after 10 s.
func (p *TestPooler) halt() {
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, 10 * time.Second}, {syscall.SIGKILL, time.Minute}} {
		if err := p.cmd.Process.Signal(step.sig); err != nil && errors.Is(err, os.ErrProcessDone) {
			<-p.done
			return
		}
		select {
		case <-p.done:
			return
		case <-time.After(step.wait):
		}
	}
}
