package pgserver

import "errors"

// Errors returned by this package. They are wrapped with context (an
// operation prefix such as "pgserver: initdb:" and, where PostgreSQL gave
// one, its own reason), so test for them with errors.Is.
var (
	// ErrNoBinaries means the PostgreSQL server programs (initdb, pg_ctl
	// and postgres) were found neither in PATH nor in
	// /usr/lib/postgresql/*/bin.
	ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found")

	// ErrServeRunning means another "sked serve" holds the serve lock of
	// the data directory.
	ErrServeRunning = errors.New(`another "sked serve" is already running`)

	// ErrNoServerUser means Sked runs as root, which PostgreSQL refuses,
	// and the "postgres" user to run PostgreSQL as does not exist.
	ErrNoServerUser = errors.New(`the "postgres" user to run PostgreSQL as does not exist`)

	// ErrUnreachable means the user PostgreSQL runs as cannot enter a
	// directory on the way to the cluster, and Sked could not work around it.
	ErrUnreachable = errors.New("directory not accessible to the PostgreSQL server user")

	// ErrSocketPathTooLong means the unix socket path would exceed the
	// 107 bytes the operating system allows.
	ErrSocketPathTooLong = errors.New("unix socket path too long")

	// ErrVersionMismatch means the cluster was created by another major
	// version of PostgreSQL than the binaries that were found.
	ErrVersionMismatch = errors.New("PostgreSQL version mismatch")

	// ErrNotReady means PostgreSQL did not accept connections in time.
	ErrNotReady = errors.New("PostgreSQL is not accepting connections")

	// ErrNoPgBouncer means the pgbouncer program for a test pooler was
	// found neither in PATH nor in /usr/sbin.
	ErrNoPgBouncer = errors.New("pgbouncer not found")

	// ErrClosed means the Embedded was already closed.
	ErrClosed = errors.New("embedded PostgreSQL already closed")
)
