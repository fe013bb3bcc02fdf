package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// sqlStateReadOnly is read_only_sql_transaction: a write refused by a
// standby (in recovery) or by a server whose transactions are read-only
// (default_transaction_read_only on), as during a failover.
const sqlStateReadOnly = "25006"

// isReadOnly reports whether err is a write refused by a read-only server
// (SQLSTATE 25006), translated or not.
func isReadOnly(err error) bool {
	if errors.Is(err, ErrReadOnly) {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == sqlStateReadOnly
}

// poolGuard drops the pool's connections to a read-only server, so that
// the pool reconnects at once and, with a multi-host URL naming
// target_session_attrs=read-write (or a proxy that follows the primary),
// finds the new primary after a failover.
//
// It counts generations. Every connection remembers the generation it
// was opened in (in its pgconn.CustomData, stamped by the tracer at its
// first statement, which database/sql runs right after connecting; not
// by an AfterConnect hook, which gorm's driver replaces for a URL naming
// a TimeZone). The generation moves on when a statement on a
// connection of the current generation fails with SQLSTATE 25006 (seen by
// a pgx query tracer on every pool connection, whatever store method ran
// the statement) and when CheckReady finds the server in recovery or
// read-only. Before database/sql hands out a connection again it calls
// pgx stdlib's reset-session hook, which refuses a connection of an older
// generation with driver.ErrBadConn: database/sql closes it and takes
// another or opens a new one, without an error for the caller. So one
// read-only error drops every connection opened before it, idle or in
// use (in use: when it is handed back), and none opened after it.
// Connections to a server that is still read-only after reconnecting
// fail again and move the generation on again; that costs one reconnect
// per refused write, while nothing writable is there anyway.
//
// A dead server needs no guard: pgx closes a connection whose server went
// away, and database/sql drops closed connections.
//
// Safe for concurrent use.
type poolGuard struct {
	gen atomic.Uint64
}

// connGenKey is the key of a connection's generation in its CustomData.
const connGenKey = "sked.poolGeneration"

// options returns the stdlib options that install the guard in a pool.
func (g *poolGuard) options() []stdlib.OptionOpenDB {
	return []stdlib.OptionOpenDB{
		stdlib.OptionBeforeConnect(func(_ context.Context, cfg *pgx.ConnConfig) error {
			if cfg.Tracer == nil {
				cfg.Tracer = g
			} else {
				cfg.Tracer = multitracer.New(cfg.Tracer, g)
			}
			return nil
		}),
		stdlib.OptionResetSession(func(_ context.Context, conn *pgx.Conn) error {
			if g.stale(conn) {
				return driver.ErrBadConn
			}
			return nil
		}),
	}
}

// born returns the generation conn was opened in, stamping it with the
// current one when it has none yet (its first statement).
func (g *poolGuard) born(conn *pgx.Conn) uint64 {
	data := conn.PgConn().CustomData()
	gen, ok := data[connGenKey].(uint64)
	if !ok {
		gen = g.gen.Load()
		data[connGenKey] = gen
	}
	return gen
}

// stale reports whether conn was opened before the latest read-only
// error.
func (g *poolGuard) stale(conn *pgx.Conn) bool { return g.born(conn) < g.gen.Load() }

// dropAll moves the generation on: every connection open now is dropped
// when next handed out.
func (g *poolGuard) dropAll() { g.gen.Add(1) }

// TraceQueryStart stamps a new connection with the current generation.
func (g *poolGuard) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	g.born(conn)
	return ctx
}

// TraceQueryEnd moves the generation on when a statement on a connection
// of the current generation was refused as a write on a read-only server
// (one bump per generation, however many connections see the error at
// once).
func (g *poolGuard) TraceQueryEnd(_ context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	if data.Err == nil || !isReadOnly(data.Err) {
		return
	}
	b := g.born(conn)
	g.gen.CompareAndSwap(b, b+1)
}

// checkWritable checks that the database answers and accepts writes on
// the pool the store (and the engine) writes with: it is neither a
// standby (pg_is_in_recovery()) nor read-only (transaction_read_only, set
// for instance by default_transaction_read_only). A read-only server's
// connections are dropped (see poolGuard), so that the next statements
// reconnect. The error says why: wrapping ErrUnavailable when the server
// does not answer, ErrReadOnly when it refuses writes.
func (s *Store) checkWritable(ctx context.Context) error {
	var st struct {
		InRecovery bool
		ReadOnly   string
	}
	const q = `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`
	err := s.db.WithContext(ctx).Raw(q).Scan(&st).Error
	if err != nil && ctx.Err() == nil {
		// A connection whose server went away (a restart) fails once and
		// is closed: ask again on another before saying unreachable.
		err = s.db.WithContext(ctx).Raw(q).Scan(&st).Error
	}
	if err != nil {
		return fmt.Errorf("models: ready: %w: %w", ErrUnavailable, err)
	}
	switch {
	case st.InRecovery:
		s.guard.dropAll()
		return fmt.Errorf("models: ready: %w (a standby in recovery, not the primary)", ErrReadOnly)
	case st.ReadOnly == "on":
		s.guard.dropAll()
		return fmt.Errorf("models: ready: %w (transaction_read_only is on)", ErrReadOnly)
	}
	return nil
}
