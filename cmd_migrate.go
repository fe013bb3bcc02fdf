package main

import (
	"context"
	"fmt"
)

// cmdMigrate implements `sked migrate`: it applies the pending migrations
// (as every command's openDatabase does) and prints the schema version.
func cmdMigrate(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("migrate", sio, args, nil)
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
	v, err := db.Store.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(sio.out, "database schema is at version %d\n", v)
	return nil
}
