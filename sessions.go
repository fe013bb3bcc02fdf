package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"sked/handlers"
	"sked/models"
)

// sessionPurgeInterval is how often serve deletes the sessions that have
// ended (each request also deletes its own ended session when it sees it).
const sessionPurgeInterval = time.Hour

// announceSetupCode logs a new one-time setup code (key setup_code) while
// no administrator exists; the first-run setup page asks for it. Each
// instance logs its own; every one is accepted until the setup is done.
func announceSetupCode(ctx context.Context, store *models.Store, logger *slog.Logger) error {
	code, ok, err := store.NewSetupCode(ctx, time.Now())
	if err != nil {
		return fmt.Errorf("setup code: %w", err)
	}
	if ok {
		logger.Warn("no administrator yet: open the setup page and enter this setup code (or run `sked user add NAME --admin`)",
			"setup_code", code, "path", "/setup")
	}
	return nil
}

// sessionIdle is the idle timeout in force: cfg's, or the default when
// unset.
func sessionIdle(cfg Config) time.Duration {
	if cfg.SessionIdleTimeout > 0 {
		return cfg.SessionIdleTimeout
	}
	return handlers.DefaultSessionIdleTimeout
}

// startSessionPurge deletes ended sessions (idle for idle, or past their
// absolute end) now and every sessionPurgeInterval until the returned stop
// function is called; stop waits for a purge under way.
func startSessionPurge(store *models.Store, idle time.Duration, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(sessionPurgeInterval)
		defer tick.Stop()
		for {
			n, err := store.PurgeSessions(ctx, time.Now(), idle)
			switch {
			case err != nil && ctx.Err() == nil:
				logger.Warn("purging ended sessions failed", "err", err)
			case n > 0:
				logger.Info("purged ended sessions", "sessions", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
