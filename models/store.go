package models

import (
	"context"
	"fmt"
	"time"

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
	// SecretKeys seal and open the secrets of jobs (AES-256, SecretKeySize
	// bytes each): the first seals, every one opens. With none, jobs
	// without secrets work and writing a job with secrets fails with
	// ErrNoSecretKey.
	SecretKeys [][]byte
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
	guard        *poolGuard
}

// Open connects to the PostgreSQL database named by dsn (a postgres:// URL
// or a keyword/value string, which may name several hosts with
// target_session_attrs=read-write) and checks that it answers. It does not
// migrate: call Migrate. The pool drops its connections to a server found
// read-only (see poolGuard) and reconnects.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	guard := &poolGuard{}
	db, err := gorm.Open(postgres.New(postgres.Config{DSN: dsn, OptionOpenDB: guard.options()}), &gorm.Config{
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
	return &Store{db: db, passwordCost: cost, dummyHash: dummy, box: box, guard: guard}, nil
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
