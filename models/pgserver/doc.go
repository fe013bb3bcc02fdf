// Package pgserver runs PostgreSQL for Sked: the embedded default database
// of a data directory (see OpenEmbedded), the "one sked serve per data
// directory" lock (see LockServe), throwaway clusters for tests (see
// StartTestCluster; StartTestStandby makes a streaming standby of one)
// and, in front of them, throwaway PgBouncers in transaction mode (see
// StartTestPooler).
//
// Layout of the embedded server of a data directory D:
//
//	D/pg                 the cluster (PGDATA), created by initdb on first start
//	D/pgsocket/          the private unix socket directory (mode 0700)
//	D/postgresql.log     the server's log
//	D/pg.control.lock    flock: held exclusively while starting or stopping
//	D/pg.users.lock      flock: held shared by every open Embedded
//	D/serve.lock         flock: held exclusively by the running "sked serve"
//
// When Sked runs as root, PostgreSQL runs as the "postgres" user. If that
// user cannot enter D (for example D lies under /root), the cluster, socket
// directory and log live in /var/lib/sked/clusters/<hash>/ instead, and D/pg
// is a symbolic link to the cluster there.
//
// The package uses only the standard library and golang.org/x/sys/unix; it
// speaks just enough of the PostgreSQL wire protocol to check readiness and
// create the database.
package pgserver
