// Package models owns Sked's data: the store type that holds every SQL query,
// the migration runner, and the sentinel errors the rest of the program
// matches on. Nothing outside this package imports GORM.
package models

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// Sentinel errors returned (wrapped) by the Store. Callers match them with
// errors.Is; the HTTP error handler maps them to status codes.
var (
	// ErrNotFound means the requested record does not exist (or is not
	// visible to the caller). It replaces gorm.ErrRecordNotFound.
	ErrNotFound = errors.New("not found")
	// ErrConflict means the write collides with existing data, such as a
	// duplicate name.
	ErrConflict = errors.New("conflict")
	// ErrSetupDone means the first-run setup was already completed: an
	// administrator exists.
	ErrSetupDone = errors.New("setup already completed")
	// ErrBadCredentials means the user name or the password is wrong. Both
	// cases share one error so that callers cannot tell them apart.
	ErrBadCredentials = errors.New("unknown user or wrong password")
	// ErrUserDisabled means the account exists but may not sign in.
	ErrUserDisabled = errors.New("user is disabled")
	// ErrNotMigrated means the database schema is older than this binary.
	ErrNotMigrated = errors.New("database schema is not up to date")
	// ErrSchemaTooNew means the database holds a migration newer than
	// every one this binary knows (SchemaTooNewError says which release it
	// needs).
	ErrSchemaTooNew = errors.New("database schema is newer than this release")
	// ErrInvalidText means PostgreSQL refused a value as text: it holds a
	// NUL byte or is not valid UTF-8 (SQLSTATE 22021 or 22P05). The HTTP
	// layer refuses such input before it gets here; this is the defense
	// behind it.
	ErrInvalidText = errors.New("the input holds a NUL byte or text that is not valid UTF-8")
	// ErrLastOwner means the change would leave a workspace without an owner.
	ErrLastOwner = errors.New("the last owner of a workspace cannot be removed")
	// ErrReadOnly means the database refused a write because the server
	// is read-only (SQLSTATE 25006): a standby, or a primary being demoted,
	// as during a failover. The store has dropped its connections to it
	// (see poolGuard); a later try reconnects. It answers 503.
	ErrReadOnly = errors.New("the database is read-only")
	// ErrUnavailable means the database could not be reached. It answers
	// 503.
	ErrUnavailable = errors.New("the database is unreachable")
	// ErrNoSecretKey means a job with secrets was written while the store has
	// no secret key.
	ErrNoSecretKey = errors.New("no secret key is configured")
)

// The engine's own sentinels, ErrJobNotEnabled and ErrJobFinished, are
// declared with its job states in engine_states.go.

// ConflictError is an ErrConflict with a message the user can act on,
// such as the jobs that still use a calendar to be deleted.
type ConflictError struct {
	Message string
}

// Error returns the message.
func (e *ConflictError) Error() string { return e.Message }

// Is makes a ConflictError match ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// QuotaError reports a write refused by a collection's quota (SPEC §6);
// Quota names it ("maxJobCount", "maxRecurrence", "maxJobOccurrence",
// "sku") and Message says what was exceeded. It answers 409 Conflict.
type QuotaError struct {
	Quota   string
	Message string
}

// Error returns the message.
func (e *QuotaError) Error() string { return e.Message }

// Is makes a QuotaError match ErrConflict.
func (e *QuotaError) Is(target error) bool { return target == ErrConflict }

// translate turns driver and GORM errors into the package's sentinel errors,
// prefixed with op.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%s: %w (%s)", op, ErrConflict, pgErr.ConstraintName)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%s: %w", op, ErrNotFound)
		case "22021", "22P05": // character_not_in_repertoire, untranslatable_character
			return fmt.Errorf("%s: %w", op, ErrInvalidText)
		case sqlStateReadOnly:
			return fmt.Errorf("%s: %w: %w", op, ErrReadOnly, err)
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
		}
		if strings.HasPrefix(pgErr.Code, "08") { // connection_exception
			return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
		}
	}
	if lostConnection(err) {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// lostConnection reports whether err says that the database could not be
// reached or that the connection broke: a failed connect, a network
// error, a connection closed in the middle of a message.
func lostConnection(err error) bool {
	var connErr *pgconn.ConnectError
	var opErr *net.OpError
	return errors.As(err, &connErr) || errors.As(err, &opErr) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn)
}
