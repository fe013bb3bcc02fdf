package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"sked/handlers"
	"sked/models"
	"sked/models/pgserver"
	"sked/scheduler/catalog"
	"sked/scheduler/engine"
	"sked/web"
)

// cmdServe implements `sked serve` (the default command): it serves
// until it is interrupted (SIGINT, SIGTERM), then shuts down in order.
func cmdServe(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("serve", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("serve takes no arguments, got %q", rest)
	}
	return serve(ctx, cfg, newLogger(sio.err, cfg), nil)
}

// serve serves Sked until ctx is done: it creates the data directory when
// missing and takes its serve lock, opens (and if need be starts) the
// database, migrates it, starts the engine and the background imports,
// logs the setup code while there is no administrator, purges ended
// sessions (session_purge.go), and serves HTTP on cfg.Listen. ready, when
// not nil, is called with the listening address once requests are
// accepted. On the way out it shuts down in order: the HTTP server (no new
// requests, so no new imports), the background imports (waited for, at
// most half of cfg.ShutdownTimeout, then cancelled), the engine, then the
// database (and the embedded PostgreSQL).
func serve(ctx context.Context, cfg Config, logger *slog.Logger, ready func(net.Addr)) error {
	if err := os.MkdirAll(cfg.DataDir, dataDirMode); err != nil {
		return fmt.Errorf("serve: create data directory: %w", err)
	}
	lock, err := pgserver.LockServe(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer lock.Release()

	secret, err := sessionSecret(cfg, logger)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	db, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer db.Close()

	ecfg := cfg.Engine()
	ecfg.Version = version
	eng, err := engine.New(ecfg, engine.Deps{
		Store:    db.Store,
		Notifier: db.notifier(cfg),
		Logger:   logger,
		Metrics:  engine.DefaultMetrics(),
		// The engine's own catalog, for the calendars of jobs (SPEC §13.6).
		Calendars: catalog.New(db.Store, nil),
		// The link of a notification's event to the job page.
		JobURL:     jobURL(cfg.BaseURL),
		MonitorURL: monitorURL(cfg.BaseURL),
	})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := eng.Start(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	// Stopped below after the HTTP server; on an early return, at once.
	defer eng.Stop(context.Background())

	// Every write goes through the catalog; it runs jobs now through the
	// engine. Background imports run under its lifecycle.
	cat := catalog.New(db.Store, nil).WithRunner(eng)
	imports := catalog.NewImports(cat)
	if err := imports.Start(ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	// Stopped below after the HTTP server; on an early return, at once
	// (before the engine and the database: defers run last first).
	defer imports.Stop(doneContext())

	if err := announceSetupCode(ctx, db.Store, logger); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	stopPurge := startSessionPurge(db.Store, sessionIdle(cfg), logger)
	defer stopPurge()

	handler := handlers.New(handlers.Deps{
		Store:              db.Store,
		SessionSecret:      secret,
		SessionIdleTimeout: cfg.SessionIdleTimeout,
		SessionMaxAge:      cfg.SessionMaxAge,
		TrustedProxies:     cfg.TrustedProxies,
		SecureCookies:      cfg.SecureCookies(),
		Logger:             logger,
		Version:            version,
		Catalog:            cat,
		Imports:            imports,
		BaseURL:            cfg.BaseURL,
		AllowTargets:       cfg.AllowTargets,
		OIDC:               cfg.OIDC.Client(nil),
		OpenWorkspaces:     cfg.OpenWorkspaces,
		EngineReady:        eng.Ready,
	})
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", cfg.Listen, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("sked is serving", "addr", ln.Addr().String(), "version", version)
	if ready != nil {
		ready(ln.Addr())
	}

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("HTTP server did not shut down cleanly", "err", err)
	}
	logger.Info("HTTP server stopped")
	// Background imports end next: waited for, then cancelled.
	importsCtx, cancelImports := context.WithTimeout(shutdownCtx, cfg.ShutdownTimeout/2)
	if err := imports.Stop(importsCtx); err != nil {
		logger.Warn("background imports did not finish in time", "err", err)
	}
	cancelImports()
	logger.Info("background imports stopped")
	// The engine stops after the HTTP server and before the database.
	if err := eng.Stop(shutdownCtx); err != nil {
		logger.Warn("engine did not stop cleanly", "err", err)
	}
	return nil
}

// doneContext returns a context that has already ended: a Stop given it
// stops at once.
func doneContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// jobURL returns the absolute URL of a job's page under base (--base-url),
// for the engine's notification events; nil without a base URL.
func jobURL(base string) func(workspace, resourceGroup, collection, job string) string {
	if base == "" {
		return nil
	}
	base = strings.TrimRight(base, "/")
	return func(workspace, resourceGroup, collection, job string) string {
		return base + web.JobPath(workspace, resourceGroup, collection, job)
	}
}

// monitorURL returns the link of a monitor's events: its page under
// base; nil (no link) without a base URL.
func monitorURL(base string) func(workspace, monitor string) string {
	if base == "" {
		return nil
	}
	base = strings.TrimRight(base, "/")
	return func(workspace, monitor string) string { return base + web.MonitorPath(workspace, monitor) }
}

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
