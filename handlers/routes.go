package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes is the one table of every route. Pages get the session and the
// CSRF check (every state-changing request must carry the token); pages
// for signed-in users also get requireUser. Middleware is attached per
// route, not through groups, so that unknown paths answer 404 and wrong
// methods 405.
func (s *Server) routes(e *echo.Echo) {
	e.Use(middleware.Recover())
	e.Use(s.logRequests)
	e.Use(middleware.BodyLimit("1M"))
	e.Use(securityHeaders)

	page := []echo.MiddlewareFunc{s.loadSession, s.csrf}
	signedIn := []echo.MiddlewareFunc{s.loadSession, s.csrf, s.requireUser}

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metrics)
	e.GET("/static/*", s.staticFile)
	e.POST("/api/v1/preview", s.preview, s.requireToken)

	e.GET("/setup", s.setupPage, page...)
	e.POST("/setup", s.setupSubmit, page...)
	e.GET("/signin", s.signInPage, page...)
	e.POST("/signin", s.signInSubmit, page...)
	e.POST("/signout", s.signOut, page...)

	e.GET("/", s.dashboard, signedIn...)
}
