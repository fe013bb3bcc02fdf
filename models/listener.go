package models

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
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

// DuePayload is the payload of a notification saying that an attempt is
// due at t: t in RFC 3339 with nanoseconds, UTC.
func DuePayload(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ParseDuePayload reads a notification's payload: an RFC 3339 time or a
// Unix time in milliseconds. ok is false for an empty or unreadable one.
func ParseDuePayload(p string) (t time.Time, ok bool) {
	if p == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, p); err == nil {
		return t, true
	}
	if ms, err := strconv.ParseInt(p, 10, 64); err == nil {
		return time.UnixMilli(ms), true
	}
	return time.Time{}, false
}

// dueBuffer is how many due times a Listener holds for its reader; beyond
// that, a due time becomes a plain wake-up.
const dueBuffer = 256

// Listener receives the database's wake-ups on NotifyChannel over its own
// connection (pgx, outside the pool). A notification without payload says
// "look again" and is delivered on C; one carrying a due time (DuePayload)
// is delivered on Due; NotifySendPayload ("a notification was stored") on
// Sends. Create it with NewListener and run it with Run.
type Listener struct {
	dsn    string
	logger *slog.Logger
	c      chan struct{}
	due    chan time.Time
	sends  chan struct{}
	// Backoff is the wait before reconnecting after a lost connection;
	// it doubles up to MaxBackoff. Defaults 100 ms and 1 s: after an
	// outage or a failover, LISTEN is back (and the engine claims) at most
	// a second after the database is.
	Backoff, MaxBackoff time.Duration
	// IdleCheck is how long the listener waits for a notification before
	// it asks its server whether it is still there and writable; no
	// answer within IdleCheck more, or a read-only server, and it
	// reconnects. So a server that vanished without closing the
	// connection (its host died, the network was cut) is noticed within
	// twice IdleCheck, and an old primary demoted but still up within
	// IdleCheck. Default 5 s.
	IdleCheck time.Duration
	// ConnectTimeout bounds one connection attempt (every host of a
	// multi-host URL together), on top of the URL's own connect_timeout.
	// Default 10 s.
	ConnectTimeout time.Duration
}

// NewListener returns a Listener for the database of dsn that logs to
// logger (slog.Default when nil).
func NewListener(dsn string, logger *slog.Logger) *Listener {
	if logger == nil {
		logger = slog.Default()
	}
	return &Listener{dsn: dsn, logger: logger, c: make(chan struct{}, 1), due: make(chan time.Time, dueBuffer),
		sends:   make(chan struct{}, 1),
		Backoff: 100 * time.Millisecond, MaxBackoff: time.Second, IdleCheck: 5 * time.Second, ConnectTimeout: 10 * time.Second}
}

// C returns the channel of wake-ups. Wake-ups are coalesced: one pending
// value stands for any number of notifications. A wake-up is also sent
// after every (re)connection, since notifications sent while disconnected
// are lost.
func (l *Listener) C() <-chan struct{} { return l.c }

// Due returns the channel of the due times that notifications carried,
// in the order received. When its reader falls behind by more than a few
// hundred, further due times are delivered as wake-ups on C instead, so
// none is lost. An unreadable payload is a wake-up on C.
func (l *Listener) Due() <-chan time.Time { return l.due }

// Sends returns the channel of "a notification was stored" wake-ups for
// the engine's sender, coalesced like C's. One is also sent after every
// (re)connection.
func (l *Listener) Sends() <-chan struct{} { return l.sends }

// deliver hands one notification's payload to the reader.
func (l *Listener) deliver(payload string) {
	if payload == NotifySendPayload {
		select {
		case l.sends <- struct{}{}:
		default:
		}
		return
	}
	t, ok := ParseDuePayload(payload)
	if !ok {
		if payload != "" {
			l.logger.Debug("engine listener: unreadable payload, looking again", "payload", payload)
		}
		l.wake()
		return
	}
	select {
	case l.due <- t:
	default:
		l.wake()
	}
}

func (l *Listener) wake() {
	select {
	case l.c <- struct{}{}:
	default:
	}
}

// Run listens until ctx is done, reconnecting with backoff when the
// connection is lost, when its server stops answering or turns read-only
// (IdleCheck), or when LISTEN fails (a standby refuses it; with a
// multi-host URL naming target_session_attrs=read-write the next attempt
// looks for the primary again). Every (re)connection wakes C and Sends,
// so the engine claims everything due at once rather than rely on
// notifications sent while the listener was away. It returns nil when
// ctx ends.
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
	cctx, cancel := context.WithTimeout(ctx, l.ConnectTimeout)
	conn, err := pgx.Connect(cctx, l.dsn)
	cancel()
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
	select {
	case l.sends <- struct{}{}:
	default:
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, l.IdleCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			l.deliver(n.Payload)
		case ctx.Err() == nil && wctx.Err() != nil && !conn.IsClosed():
			// Quiet for IdleCheck: is the server still there, and still
			// the primary? (A notification that arrives meanwhile is kept
			// for the next wait.)
			if err := l.checkServer(ctx, conn); err != nil {
				return true, err
			}
		default:
			return true, fmt.Errorf("models: listen: wait: %w", err)
		}
	}
}

// checkServer asks the listener's server whether it is still there and
// writable: the notifications of writes on a new primary never reach a
// listener left on the old one, demoted but alive (read-only, not yet
// restarted as a standby). No answer within IdleCheck, or a read-only
// server, is an error: the listener reconnects, through the URL again.
func (l *Listener) checkServer(ctx context.Context, conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, l.IdleCheck)
	defer cancel()
	var readOnly bool
	err := conn.QueryRow(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`).Scan(&readOnly)
	switch {
	case err != nil:
		return fmt.Errorf("models: listen: the server stopped answering: %w", err)
	case readOnly:
		return fmt.Errorf("models: listen: the server is read-only (no longer the primary): %w", ErrReadOnly)
	}
	return nil
}
