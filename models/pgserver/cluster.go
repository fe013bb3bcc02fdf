package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fixed settings of every cluster this package creates.
const (
	// superuser is the PostgreSQL superuser initdb creates (-U).
	superuser = "sked"
	// port only names the socket file (.s.PGSQL.5432): servers listen on
	// no TCP port, and each has a private socket directory.
	port = 5432
	// maxSocketPath is the longest unix socket path Linux accepts
	// (sizeof(sun_path) - 1).
	maxSocketPath = 107
	// startTimeout bounds pg_ctl start and stop (-t).
	startTimeout = 60
)

// serverUser is the operating system account the PostgreSQL programs run
// as: the current user, or "postgres" when Sked runs as root (initdb,
// pg_ctl and postgres refuse to run as root).
type serverUser struct {
	name     string
	uid, gid uint32
	groups   []uint32
	home     string
	switched bool // true when running as root: commands get Credential
}

// lookupServerUser returns the user to run PostgreSQL as.
func lookupServerUser() (serverUser, error) {
	if os.Geteuid() != 0 {
		su := serverUser{uid: uint32(os.Geteuid()), gid: uint32(os.Getegid()), home: os.Getenv("HOME")}
		if u, err := user.Current(); err == nil {
			su.name = u.Username
		}
		if gs, err := os.Getgroups(); err == nil {
			for _, g := range gs {
				su.groups = append(su.groups, uint32(g))
			}
		}
		return su, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			return serverUser{}, &wrapped{err: ErrNoServerUser, msg: "pgserver: running as root, Sked runs PostgreSQL as the \"postgres\" user (PostgreSQL refuses to run as root), but that user does not exist: " +
				"create it with `useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/sh postgres` " +
				"(installing the postgresql package also creates it), run Sked as a non-root user, or set SKED_DATABASE_URL"}
		}
		return serverUser{}, fmt.Errorf("pgserver: look up user postgres: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return serverUser{}, fmt.Errorf("pgserver: user postgres has a non-numeric uid %q or gid %q", u.Uid, u.Gid)
	}
	if uid == 0 {
		return serverUser{}, fmt.Errorf("pgserver: user postgres has uid 0; PostgreSQL refuses to run as root")
	}
	su := serverUser{name: "postgres", uid: uint32(uid), gid: uint32(gid), home: u.HomeDir, switched: true}
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if g, err := strconv.ParseUint(id, 10, 32); err == nil {
				su.groups = append(su.groups, uint32(g))
			}
		}
	}
	return su, nil
}

// String names the user for messages.
func (u serverUser) String() string {
	if u.name != "" {
		return fmt.Sprintf("%q (uid %d)", u.name, u.uid)
	}
	return fmt.Sprintf("uid %d", u.uid)
}

// command returns a command running bin as u, in "/" (the caller's working
// directory may be one u cannot enter), with a minimal environment (no PG*
// variables that would change ports or paths, no Sked secrets), in its own
// process group (a Ctrl-C on the terminal reaches Sked, which then stops
// PostgreSQL in order). Cancelling ctx interrupts the command (SIGINT, so
// initdb removes what it created), then kills it 10 s later.
func (u serverUser) command(ctx context.Context, bins Binaries, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bins.Path(name), args...)
	cmd.Dir = "/"
	cmd.Env = u.env(bins)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if u.switched {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// env is the environment of the PostgreSQL programs.
func (u serverUser) env(bins Binaries) []string {
	home := u.home
	if home == "" {
		home = "/"
	}
	env := []string{
		"PATH=" + bins.Dir + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"LC_ALL=C",
	}
	if u.name != "" {
		env = append(env, "USER="+u.name, "LOGNAME="+u.name)
	}
	if tz, ok := os.LookupEnv("TZ"); ok {
		env = append(env, "TZ="+tz)
	}
	return env
}

// run runs cmd and returns an error prefixed with "pgserver: op:" that
// carries the tail of the command's output.
func run(cmd *exec.Cmd, op string) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if t := tail(out.Bytes()); t != "" {
			return out.Bytes(), fmt.Errorf("pgserver: %s: %w: %s", op, err, t)
		}
		return out.Bytes(), fmt.Errorf("pgserver: %s: %w", op, err)
	}
	return out.Bytes(), nil
}

// chown gives path to u when running as root; otherwise it does nothing.
func (u serverUser) chown(path string) error {
	if !u.switched {
		return nil
	}
	if err := os.Lchown(path, int(u.uid), int(u.gid)); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// mkdirOwned creates dir (mode 0700, owned by u) if missing, and makes an
// existing one mode 0700 owned by u.
func (u serverUser) mkdirOwned(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := u.chown(dir); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// inGroup reports whether u is a member of group gid.
func (u serverUser) inGroup(gid uint32) bool {
	if gid == u.gid {
		return true
	}
	for _, g := range u.groups {
		if g == gid {
			return true
		}
	}
	return false
}

// firstUnsearchable returns the first directory from "/" down to dir
// (included) that u may not enter (no search permission by the owner,
// group or other bits that apply to u), or "" when u can reach dir. dir
// must be absolute and free of symbolic links. ACLs are not considered.
func (u serverUser) firstUnsearchable(dir string) (string, error) {
	var chain []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if p == "/" || p == "." {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fi, err := os.Stat(chain[i])
		if err != nil {
			return "", fmt.Errorf("pgserver: %w", err)
		}
		if !u.canSearch(fi) {
			return chain[i], nil
		}
	}
	return "", nil
}

func (u serverUser) canSearch(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || u.uid == 0 {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == u.uid:
		return perm&0o100 != 0
	case u.inGroup(st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// describeDir returns "mode 0700, owner uid 0 gid 0" for messages.
func describeDir(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("mode %04o, owner uid %d gid %d", fi.Mode().Perm(), st.Uid, st.Gid)
	}
	return fmt.Sprintf("mode %04o", fi.Mode().Perm())
}

// socketPath returns the path of the server's socket in socketDir and
// fails when it is longer than unix sockets allow.
func socketPath(socketDir string) (string, error) {
	p := filepath.Join(socketDir, fmt.Sprintf(".s.PGSQL.%d", port))
	if len(p) > maxSocketPath {
		return "", &wrapped{err: ErrSocketPathTooLong, msg: fmt.Sprintf(
			"pgserver: the PostgreSQL socket path %s is %d bytes long, but unix sockets allow at most %d: use a data directory with a shorter path (or set SKED_DATABASE_URL)",
			p, len(p), maxSocketPath)}
	}
	return p, nil
}

// initdb creates a cluster in dataDir, which must be missing or empty and
// (when switching users) owned by u. extra are further initdb arguments.
func initdb(ctx context.Context, u serverUser, bins Binaries, dataDir string, extra ...string) error {
	args := append([]string{"-D", dataDir, "-U", superuser, "-A", "trust", "--encoding", "UTF8", "--locale", "C"}, extra...)
	_, err := run(u.command(ctx, bins, "initdb", args...), "initdb")
	return err
}

// hasCluster reports whether dataDir holds a cluster, and its major version.
func hasCluster(dataDir string) (bool, string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("pgserver: %w", err)
	}
	return true, strings.TrimSpace(string(b)), nil
}

// skedConf is the file in the cluster holding the settings Sked manages; it
// is rewritten before every start, so a moved data directory gets the right
// socket directory.
const skedConf = "sked.conf"

// configure makes postgresql.conf include sked.conf and writes sked.conf:
// no TCP listening, the private socket directory only.
func configure(u serverUser, dataDir, socketDir string) error {
	main := filepath.Join(dataDir, "postgresql.conf")
	b, err := os.ReadFile(main)
	if err != nil {
		return fmt.Errorf("pgserver: configure: %w", err)
	}
	include := "include_if_exists = '" + skedConf + "'"
	if !bytes.Contains(b, []byte(include)) {
		f, err := os.OpenFile(main, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("pgserver: configure: %w", err)
		}
		_, err = fmt.Fprintf(f, "\n# Settings managed by Sked (listen only on a private unix socket).\n%s\n", include)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("pgserver: configure: %w", err)
		}
	}
	conf := fmt.Sprintf(`# Written by Sked before every start; changes here are lost.
listen_addresses = ''
port = %d
unix_socket_directories = %s
unix_socket_permissions = 0700
`, port, confQuote(socketDir))
	p := filepath.Join(dataDir, skedConf)
	if err := os.WriteFile(p, []byte(conf), 0o600); err != nil {
		return fmt.Errorf("pgserver: configure: %w", err)
	}
	return u.chown(p)
}

// confQuote quotes s as a postgresql.conf string value.
func confQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

// pgCtlStart starts the server in dataDir as a daemon with pg_ctl, waiting
// until it accepts connections. Its output goes to logFile; on failure the
// error carries what PostgreSQL wrote there.
func pgCtlStart(ctx context.Context, u serverUser, bins Binaries, dataDir, logFile string) error {
	offset := fileSize(logFile)
	cmd := u.command(ctx, bins, "pg_ctl", "start", "-w", "-t", strconv.Itoa(startTimeout), "-D", dataDir, "-l", logFile)
	if _, err := run(cmd, "pg_ctl start"); err != nil {
		if t := logTail(logFile, offset); t != "" {
			return fmt.Errorf("%w; %s says: %s", err, logFile, t)
		}
		return err
	}
	return nil
}

// pgCtlStop stops the server in dataDir (fast shutdown: sessions are ended,
// transactions rolled back), falling back to an immediate shutdown. Stopping
// is finished even when ctx is cancelled, bounded by the pg_ctl timeout.
func pgCtlStop(ctx context.Context, u serverUser, bins Binaries, dataDir string) error {
	ctx = context.WithoutCancel(ctx)
	_, err := run(u.command(ctx, bins, "pg_ctl", "stop", "-m", "fast", "-w", "-t", strconv.Itoa(startTimeout), "-D", dataDir), "pg_ctl stop")
	if err == nil {
		return nil
	}
	if _, err2 := run(u.command(ctx, bins, "pg_ctl", "stop", "-m", "immediate", "-w", "-t", "30", "-D", dataDir), "pg_ctl stop -m immediate"); err2 != nil {
		return errors.Join(err, err2)
	}
	return nil
}

// postmasterPID returns the pid in dataDir/postmaster.pid, or 0 when there
// is none.
func postmasterPID(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// processAlive reports whether pid is a live process (zombies count as
// gone: pg_ctl's daemons are reaped by init, which may be slow to do so).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

// waitReady polls the server on socket until it accepts connections,
// giving up after timeout, when ctx ends, or when exited (if non-nil) is
// closed.
func waitReady(ctx context.Context, socket string, timeout time.Duration, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := 20 * time.Millisecond
	for {
		err := ping(ctx, socket, superuser, "postgres")
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%w: the server exited", ErrNotReady)
		case <-ctx.Done():
			return fmt.Errorf("%w on %s after %s: %v", ErrNotReady, socket, timeout, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// fileSize returns the size of path, or 0.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logTail returns the end of what was written to path after offset.
func logTail(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if size := fileSize(path); size-offset > 8192 {
		offset = size - 8192
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 8192))
	return tail(b)
}

// tail returns the last lines of command output, trimmed, on one line.
func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	lines := strings.Split(s, "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	s = strings.Join(lines, " | ")
	if len(s) > 1500 {
		s = "…" + s[len(s)-1500:]
	}
	return s
}

// ServerPID returns the pid of the PostgreSQL server running for the
// embedded cluster of the Sked data directory dataDir, or 0 when none runs
// (no postmaster.pid, or its process is gone). It is for operators' checks
// and tests; the package's own start and stop logic does not need it.
func ServerPID(dataDir string) int {
	pid := postmasterPID(filepath.Join(dataDir, clusterName))
	if !processAlive(pid) {
		return 0
	}
	return pid
}
