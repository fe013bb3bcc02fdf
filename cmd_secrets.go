package main

import (
	"context"
	"fmt"
)

// cmdSecretsRotate re-encrypts every job's secrets with the first key of
// --secret-key (SKED_SECRET_KEY), so that the older keys listed after it
// can be removed: sked secrets rotate --secret-key NEW,OLD.
func cmdSecretsRotate(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("secrets rotate", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("usage: sked secrets rotate --secret-key NEW,OLD")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("secrets rotate: %w", err)
	}
	defer db.Close()
	n, err := db.Store.ResealSecrets(ctx)
	if err != nil {
		return fmt.Errorf("secrets rotate: %w", err)
	}
	fmt.Fprintf(sio.out, "re-encrypted the secrets of %d jobs with the first key\n", n)
	return nil
}
