package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"sked/handlers"
	"sked/models"
)

// sessionPurgeInterval is how often serve deletes the sessions that have
// ended (each request also deletes its own ended session when it sees it).
const sessionPurgeInterval = time.Hour

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
