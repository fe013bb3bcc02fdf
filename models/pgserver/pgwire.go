package pgserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// This file holds the few SQL round trips the package makes before the
// store opens: is the server up, does the database exist, create it. They
// use pgconn (pgx's low-level connection, already Sked's driver) over the
// unix socket with trust authentication.

// SQLSTATE codes the package acts on.
const (
	codeInvalidCatalog    = "3D000" // database does not exist
	codeDuplicateDatabase = "42P04"
)

// isCode reports whether err is a server error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// dialServer opens a connection to database as user on the server whose
// socket file is socket (such as /dir/.s.PGSQL.5432). Without a deadline in
// ctx it gives up after 10 s.
func dialServer(ctx context.Context, socket, user, database string) (*pgconn.PgConn, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	dir, file := filepath.Split(socket)
	port := strings.TrimPrefix(file, ".s.PGSQL.")
	dsn := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable connect_timeout=10",
		quoteDSN(filepath.Clean(dir)), port, quoteDSN(user), quoteDSN(database))
	return pgconn.Connect(ctx, dsn)
}

// quoteDSN quotes a keyword/value DSN value.
func quoteDSN(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// ping reports whether the server on socket accepts connections: nil when
// it does (also when database does not exist), an error when the socket is
// missing or refuses, or the server is starting up or shutting down.
func ping(ctx context.Context, socket, user, database string) error {
	conn, err := dialServer(ctx, socket, user, database)
	if err != nil {
		if isCode(err, codeInvalidCatalog) {
			return nil
		}
		return err
	}
	return conn.Close(ctx)
}

// execSQL connects to database and runs sql.
func execSQL(ctx context.Context, socket, user, database, sql string) error {
	conn, err := dialServer(ctx, socket, user, database)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql).ReadAll()
	return err
}

// databaseExists reports whether database exists on the server on socket.
func databaseExists(ctx context.Context, socket, database string) (bool, error) {
	conn, err := dialServer(ctx, socket, superuser, database)
	if isCode(err, codeInvalidCatalog) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, conn.Close(ctx)
}
