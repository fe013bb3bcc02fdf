package main

import (
	"context"
	"flag"
	"fmt"
)

// exitContractWaits is `sked migrate --complete`'s exit status when a
// contract migration still waits for older instances: try again later.
const exitContractWaits = 3

// cmdMigrate implements `sked migrate`: it applies the pending migrations
// (as every command's openDatabase does) and prints the schema version,
// and the contract migration that waits for the instances of older
// releases to stop, if any. That is not a failure (exit 0) unless
// --complete asks for every migration: then it exits with status 3.
func cmdMigrate(ctx context.Context, sio stdio, args []string) error {
	var complete bool
	cfg, rest, err := parseFlags("migrate", sio, args, func(fs *flag.FlagSet) {
		fs.BoolVar(&complete, "complete", false, "exit with status 3 when a contract migration waits for instances of an older release")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("migrate takes no arguments, got %q", rest)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer db.Close()
	return reportSchema(ctx, sio, db, complete)
}

// reportSchema prints the schema version of db and the contract migration
// that waits, if any; with complete, a waiting one is exit status 3.
func reportSchema(ctx context.Context, sio stdio, db *database, complete bool) error {
	v, err := db.Store.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(sio.out, "database schema is at version %d\n", v)
	if db.Held != nil {
		fmt.Fprintf(sio.out, "%s; run sked migrate again once they have stopped\n", db.Held)
		if complete {
			fmt.Fprintln(sio.err, "sked: migrate: not complete: a contract migration waits (--complete)")
			return &reportedError{code: exitContractWaits}
		}
	}
	return nil
}
