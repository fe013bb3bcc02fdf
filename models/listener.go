package models

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/driver/postgres"
)

// DSN returns the connection string the store was opened with.
func (s *Store) DSN() string {
	if d, ok := s.db.Dialector.(*postgres.Dialector); ok && d.Config != nil {
		return d.Config.DSN
	}
	return ""
}

// Listener receives the database's wake-ups on NotifyChannel over its own
// connection (pgx, outside the pool). Notifications carry no payload: a
// wake-up only says "look again". Create it with NewListener and run it
// with Run; C delivers the wake-ups.
type Listener struct {
	dsn    string
	logger *slog.Logger
	c      chan struct{}
	// Backoff is the wait before reconnecting after a lost connection;
	// it doubles up to MaxBackoff. Defaults 100 ms and 5 s.
	Backoff, MaxBackoff time.Duration
}

// NewListener returns a Listener for the database of dsn that logs to
// logger (slog.Default when nil).
func NewListener(dsn string, logger *slog.Logger) *Listener {
	if logger == nil {
		logger = slog.Default()
	}
	return &Listener{dsn: dsn, logger: logger, c: make(chan struct{}, 1),
		Backoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second}
}

// C returns the channel of wake-ups. Wake-ups are coalesced: one pending
// value stands for any number of notifications. A wake-up is also sent
// after every (re)connection, since notifications sent while disconnected
// are lost.
func (l *Listener) C() <-chan struct{} { return l.c }

func (l *Listener) wake() {
	select {
	case l.c <- struct{}{}:
	default:
	}
}

// Run listens until ctx is done, reconnecting with backoff when the
// connection is lost. It returns nil when ctx ends.
func (l *Listener) Run(ctx context.Context) error {
	backoff := l.Backoff
	for ctx.Err() == nil {
		connected, err := l.listen(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if connected {
			backoff = l.Backoff
		}
		l.logger.Warn("engine listener: connection lost", "err", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, l.MaxBackoff)
	}
	return nil
}

// listen holds one connection until it fails or ctx ends.
func (l *Listener) listen(ctx context.Context) (connected bool, err error) {
	conn, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return false, fmt.Errorf("models: listen: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return false, fmt.Errorf("models: listen: %w", err)
	}
	l.wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, fmt.Errorf("models: listen: wait: %w", err)
		}
		l.wake()
	}
}
