package models

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/crypto/bcrypt"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Options tunes a Store. The zero value is ready to use.
type Options struct {
	// PasswordCost is the bcrypt cost for new password hashes. Zero means
	// bcrypt.DefaultCost (10); tests lower it to bcrypt.MinCost.
	PasswordCost int
	// MaxOpenConns caps the connection pool. Zero means 20.
	MaxOpenConns int
	// MaxConcurrentWrites caps how many write transactions of the
	// catalog (AuditedThen) run at once; the others wait for a slot
	// before they begin (writeLimit). Zero means twice GOMAXPROCS, and at
	// least 4; below zero, no limit. The engine's transactions and reads
	// are not counted.
	MaxConcurrentWrites int
	// SecretKeys seal and open the secrets of jobs (AES-256, SecretKeySize
	// bytes each): the first seals, every one opens. With none, jobs
	// without secrets work and writing a job with secrets fails with
	// ErrNoSecretKey.
	SecretKeys [][]byte
	// Pooler says what stands between Sked and PostgreSQL. Empty (the
	// zero value) or PoolerNone is a direct connection. PoolerTransaction
	// is a pooler such as PgBouncer in transaction mode, which may give
	// each transaction (and each statement outside one) another server
	// connection: the store then runs every statement in pgx's exec mode
	// (the extended protocol's unnamed statement, parameters sent as text
	// encoded from their Go values and typed by the server, one round
	// trip), prepares and caches no statement, and keeps no session state
	// from one transaction to the next (it keeps none in either mode: its
	// locks and settings are the transaction's own).
	Pooler Pooler
	// Release is the running release (`sked version`): Migrate records it
	// with each migration it applies, and a refusal of a newer schema
	// names it. Empty means unknown.
	Release string
	// InstanceDeadAfter is how old an engine instance's latest heartbeat
	// may be before Migrate no longer counts it as live (a live instance of
	// an older release holds back contracting migrations). It should be
	// the engine's DeadAfter. Zero means 20 s, the engine's default.
	InstanceDeadAfter time.Duration
}

// Pooler names the kind of connection pooler between Sked and PostgreSQL
// (Options.Pooler, --database-pooler).
type Pooler string

// The poolers Sked knows.
const (
	// PoolerNone is a direct connection to PostgreSQL.
	PoolerNone Pooler = "none"
	// PoolerTransaction is a pooler in transaction mode (PgBouncer's
	// pool_mode = transaction).
	PoolerTransaction Pooler = "transaction"
)

// ParsePooler returns the Pooler named s ("none" or "transaction"), or
// an error listing them; "" is PoolerNone.
func ParsePooler(s string) (Pooler, error) {
	switch p := Pooler(s); p {
	case "", PoolerNone:
		return PoolerNone, nil
	case PoolerTransaction:
		return p, nil
	}
	return "", fmt.Errorf("%q is not a pooler: want %q or %q", s, PoolerNone, PoolerTransaction)
}

// Store owns every query Sked makes. Its methods are grouped in one file
// per table or aggregate (users.go, sessions.go, jobs.go, history.go,
// collections.go, calendars.go, …; the engine's in engine_*.go), and the
// read models that join several tables for one page in *_read.go.
// Every method returns the sentinel errors of errors.go, never GORM's. It
// is safe for concurrent use; Close releases its connections.
type Store struct {
	db           *gorm.DB
	passwordCost int
	dummyHash    []byte
	box          *secretBox
	release      string
	deadAfter    time.Duration
	// migrationFS holds the migrations Migrate applies; nil means the
	// embedded ones. Only tests set it.
	migrationFS fs.FS
	guard       *poolGuard
	// writes bounds the concurrent write transactions of AuditedThen.
	writes writeLimit
}

// Open connects to the PostgreSQL database named by dsn (a postgres:// URL
// or a keyword/value string, which may name several hosts with
// target_session_attrs=read-write) and checks that it answers. It does not
// migrate: call Migrate. The pool drops its connections to a server found
// read-only (see poolGuard) and reconnects.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	guard := &poolGuard{}
	dialector, err := dialect(dsn, opts.Pooler, guard)
	if err != nil {
		return nil, err
	}
	db, err := gorm.Open(dialector, &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("models: open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("models: open database: %w", err)
	}
	maxOpen := opts.MaxOpenConns
	if maxOpen == 0 {
		maxOpen = 20
	}
	sqlDB.SetMaxOpenConns(maxOpen)
	sqlDB.SetMaxIdleConns(maxOpen)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("models: connect to database: %w", err)
	}
	cost := opts.PasswordCost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	// dummyHash is compared against when a user does not exist, so that an
	// unknown user costs as much time as a wrong password.
	dummy, err := bcrypt.GenerateFromPassword([]byte("sked-dummy-password"), cost)
	if err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("models: open database: %w", err)
	}
	box, err := newSecretBox(opts.SecretKeys)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	deadAfter := opts.InstanceDeadAfter
	if deadAfter == 0 {
		deadAfter = defaultInstanceDeadAfter
	}
	return &Store{db: db, passwordCost: cost, dummyHash: dummy, box: box, release: opts.Release, deadAfter: deadAfter, guard: guard,
		writes: newWriteLimit(opts.MaxConcurrentWrites)}, nil
}

// dialect returns the GORM dialector of dsn behind pooler, whose pool
// guard drops the connections to a server found read-only: GORM's own
// for a direct connection (pgx prepares and caches each statement per
// connection), else one on a pgx configuration with exec mode and
// without statement or description caches, whatever dsn asks for.
func dialect(dsn string, pooler Pooler, guard *poolGuard) (gorm.Dialector, error) {
	pooler, err := ParsePooler(string(pooler))
	if err != nil {
		return nil, fmt.Errorf("models: open database: %w", err)
	}
	if pooler == PoolerNone {
		return postgres.New(postgres.Config{DSN: dsn, OptionOpenDB: guard.options()}), nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("models: open database: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity = 0
	cfg.DescriptionCacheCapacity = 0
	// DSN keeps the connection string for Store.DSN.
	return postgres.New(postgres.Config{DSN: dsn, Conn: stdlib.OpenDB(*cfg, guard.options()...)}), nil
}

// Close closes the connection pool.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("models: close: %w", err)
	}
	if err := sqlDB.Close(); err != nil {
		return fmt.Errorf("models: close: %w", err)
	}
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("models: ping: %w", err)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("models: ping: %w", err)
	}
	return nil
}

// inTx runs fn in a transaction. An error of fn is returned as fn returned
// it (fn translates its own, or returns a *problem.List as is); an error
// of the transaction itself (begin, commit) is translated with op, so that
// no driver or GORM error leaves the store unwrapped.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx *gorm.DB) error) error {
	var fnErr error
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		fnErr = fn(tx)
		return fnErr
	})
	if err != nil && fnErr == nil {
		return translate(op, err)
	}
	return err
}
