// Package handlers is Sked's HTTP layer: the web pages (templ) and the JSON
// APIs. Handlers are thin: they parse and validate the request, make one
// call to the store or a service, and render; they return errors, which
// one error handler (errors.go) turns into status codes and pages.
package handlers

import (
	"context"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/oidcauth"
	"sked/scheduler/action"
	"sked/scheduler/catalog"
)

// Deps is what the HTTP layer needs. Store and SessionSecret are required.
type Deps struct {
	// Store is the database.
	Store *models.Store
	// SessionSecret keys the CSRF tokens of visitors who have not signed
	// in; at least 32 bytes. Sessions themselves are kept in the database.
	SessionSecret []byte
	// SessionIdleTimeout ends a session unused for this long; zero means
	// DefaultSessionIdleTimeout (12 h).
	SessionIdleTimeout time.Duration
	// SessionMaxAge ends a session this long after sign-in; zero means
	// DefaultSessionMaxAge (14 days).
	SessionMaxAge time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For (or
	// X-Real-IP) names the client. Empty (the default) means the client is
	// always the connection's peer.
	TrustedProxies []netip.Prefix
	// SecureCookies marks cookies Secure; set it when Sked is reached over
	// HTTPS.
	SecureCookies bool
	// Logger receives request errors. Nil means slog.Default().
	Logger *slog.Logger
	// Version is shown by /healthz.
	Version string
	// Now is the clock (sign-in throttle, session expiry, default "now"
	// of previews). Nil means time.Now.
	Now func() time.Time
	// Engine runs jobs now (POST …/run) when Catalog is nil: the catalog
	// made then runs them through it. Nil answers such requests 503.
	Engine Engine
	// Catalog is the write service every change goes through. Nil means
	// a catalog on Store with the clock Now, running jobs through Engine.
	Catalog *catalog.Catalog
	// Imports runs the import page's large imports in the background; the
	// caller starts and stops it. Nil means imports of Catalog made here,
	// started by the first background import and never stopped (tests).
	Imports *catalog.Imports
	// AllowTargets are the networks jobs may call although private or
	// loopback (--allow-targets); previews warn about other such targets,
	// and a channel's test event obeys them.
	AllowTargets []netip.Prefix
	// BaseURL is where users reach Sked; it starts the nextLink of lists.
	// Empty means the scheme and Host of each request.
	BaseURL string
	// OIDC signs users in through an OpenID Connect provider besides
	// passwords. Nil (the default) means passwords only.
	OIDC *oidcauth.Client
	// OpenWorkspaces lets every user create workspaces; false (the
	// default) leaves that to administrators (--open-workspaces).
	OpenWorkspaces bool
	// EngineReady, when not nil, is asked by /readyz after the database:
	// an error (the engine does not start attempts, e.g. its clock is too
	// far from the database's) answers 503 with it (engine.Engine.Ready).
	// Nil means /readyz does not look at an engine.
	EngineReady func() error
}

// Engine is what the handlers ask of the execution engine
// (*engine.Engine).
type Engine interface {
	// Wake makes the engine look for due attempts at once (after the
	// write service queued a run).
	Wake()
}

// Server holds the state shared by the handlers. It is safe for concurrent
// use.
type Server struct {
	store    *models.Store
	sessions *sessionStore
	log      *slog.Logger
	version  string
	throttle *signInThrottle
	clock    func() time.Time
	catalog  *catalog.Catalog // reads (calendars, exports); writes go through the interfaces below
	baseURL  string
	allow    []netip.Prefix
	oidc     *oidcFlows // nil without OpenID Connect
	wsPolicy catalog.WorkspacePolicy

	collections collectionWriter
	jobs        jobWriter
	calendars   calendarWriter
	notify      notifyWriter
	targets     targetWriter
	monitors    monitorWriter
	// pings limits the pings of each monitor token (monitors_ping.go).
	pings    *pingLimiter
	notifier catalog.Sender // sends test events; its connections obey allow
	importer importer
	imports  backgroundImports
	// startImports starts imports when New made them (Deps.Imports was
	// nil); nil when the caller starts them. Safe to call more than once.
	startImports func(context.Context)
	// engineReady is Deps.EngineReady (nil: none).
	engineReady func() error
}

// New returns the HTTP handler for the whole application.
func New(d Deps) *echo.Echo {
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	idle, maxAge := d.SessionIdleTimeout, d.SessionMaxAge
	if idle <= 0 {
		idle = DefaultSessionIdleTimeout
	}
	if maxAge <= 0 {
		maxAge = DefaultSessionMaxAge
	}
	clientIP := clientIPExtractor(d.TrustedProxies)
	cat := d.Catalog
	if cat == nil {
		cat = catalog.New(d.Store, now)
		if d.Engine != nil {
			cat = cat.WithRunner(d.Engine)
		}
	}
	imports := d.Imports
	var startImports func(context.Context)
	if imports == nil {
		own := catalog.NewImports(cat)
		var once sync.Once
		imports, startImports = own, func(ctx context.Context) { once.Do(func() { _ = own.Start(ctx) }) }
	}
	s := &Server{
		store: d.Store,
		sessions: &sessionStore{
			store: d.Store, clock: now, idle: idle, maxAge: maxAge,
			csrfKey: d.SessionSecret, secure: d.SecureCookies, clientIP: clientIP,
		},
		log:      logger,
		version:  d.Version,
		throttle: newSignInThrottle(now),
		clock:    now,
		catalog:  cat,
		baseURL:  d.BaseURL,
		allow:    d.AllowTargets,
		oidc:     newOIDCFlows(d.OIDC, d.SessionSecret, d.SecureCookies),
		wsPolicy: catalog.WorkspacePolicy{Open: d.OpenWorkspaces},

		collections: cat,
		jobs:        cat,
		calendars:   cat,
		notify:      cat,
		targets:     cat,
		monitors:    cat,
		pings:       newPingLimiter(),
		notifier:    action.NewNotifier(action.Config{AllowTargets: d.AllowTargets}),
		importer:    cat,
		imports:     imports,

		startImports: startImports,
		engineReady:  d.EngineReady,
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = echo.IPExtractor(clientIP)
	s.routes(e)
	return e
}
