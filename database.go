package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sked/models"
	"sked/models/pgserver"
	"sked/scheduler/engine"
)

// database is an open, migrated Store together with the embedded
// PostgreSQL it runs on, if any.
type database struct {
	Store *models.Store
	// Held is the contract migration that waits for the instances of
	// older releases to stop (logged by openDatabase); nil when none.
	Held     *models.HeldMigration
	embedded *pgserver.Embedded
	logger   *slog.Logger
}

// openDatabase connects to cfg.DatabaseURL, or without one opens the data
// directory's embedded PostgreSQL (starting it when no other Sked process
// on that directory has), and applies pending migrations: it refuses a
// database migrated by a newer release (models.SchemaTooNewError names
// it), and leaves contract migrations for later while instances of older
// releases are alive (Held). Whatever it started is stopped again when a
// later step fails.
func openDatabase(ctx context.Context, cfg Config, logger *slog.Logger) (_ *database, err error) {
	// db is not the named result: every "return nil, err" below would set
	// that to nil before the deferred Close ran.
	db := &database{logger: logger}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	dsn := cfg.DatabaseURL
	if dsn == "" {
		db.embedded, err = pgserver.OpenEmbedded(ctx, cfg.DataDir, logger)
		if err != nil {
			return nil, err
		}
		dsn = db.embedded.DSN()
	}
	keys, err := secretKeys(cfg, logger)
	if err != nil {
		return nil, err
	}
	db.Store, err = models.Open(ctx, dsn, models.Options{
		SecretKeys: keys,
		Pooler:     cfg.DatabasePooler,
		Release:    version,
		// Live instances of older releases hold contract migrations back.
		InstanceDeadAfter: cfg.Engine().WithDefaults().DeadAfter,
	})
	if err != nil {
		return nil, err
	}
	rep, err := db.Store.ApplyMigrations(ctx)
	if err != nil {
		return nil, err
	}
	if len(rep.Applied) > 0 {
		logger.Info("database migrated", "versions", fmt.Sprint(rep.Applied), "release", version)
	}
	if db.Held = rep.Held; db.Held != nil {
		logger.Warn("contract migration waits for the instances of older releases to stop; this release works without it",
			"migration", db.Held.Migration.Name, "waiting", fmt.Sprint(db.Held.Waiting),
			"instances", models.DescribeInstances(db.Held.Blockers))
	}
	return db, nil
}

// notifier returns the engine's LISTEN connection (models.Listener): on
// cfg.ListenDatabaseURL when given, else on the store's own database.
// Behind a pooler in transaction mode without ListenDatabaseURL it returns
// nil and logs that the engine polls every second instead (cfg.Polls: a
// pooled connection keeps no LISTEN).
func (db *database) notifier(cfg Config) engine.Notifier {
	switch {
	case cfg.ListenDatabaseURL != "":
		return models.NewListener(cfg.ListenDatabaseURL, db.logger)
	case cfg.Polls():
		db.logger.Warn("not listening for notifications behind a pooler in transaction mode without --listen-database-url: the engine polls the database every second",
			"database_pooler", string(cfg.DatabasePooler), "poll_interval", PollInterval.String())
		return nil
	}
	return models.NewListener(db.Store.DSN(), db.logger)
}

// Close closes the store and releases the embedded PostgreSQL, which stops
// when no other Sked process uses it. It may be called on a partly opened
// database.
func (db *database) Close() error {
	var errs []error
	if db.Store != nil {
		errs = append(errs, db.Store.Close())
		db.Store = nil
	}
	if db.embedded != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := db.embedded.Close(ctx); err != nil {
			db.logger.Error("stopping the embedded PostgreSQL", "err", err)
			errs = append(errs, err)
		}
		db.embedded = nil
	}
	return errors.Join(errs...)
}
