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
	e.Pre(canonicalARMPath)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{LogErrorFunc: recovered}))
	e.Use(requestID)
	e.Use(s.logRequests)
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "1M", Skipper: skipBodyLimit}))
	e.Use(securityHeaders(hstsFor(s.baseURL)))
	e.Use(s.inputGate)

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

	s.armRoutes(e)
	s.jobFormRoutes(e)
	s.accountRoutes(e)
	s.importExportRoutes(e)
	s.pageRoutes(e)
	s.calendarAPIRoutes(e)
	s.calendarPageRoutes(e)
}

// armRoutes registers the Azure Scheduler REST API 2016-03-01 (SPEC §7):
// bearer token, api-version and workspace membership first.
func (s *Server) armRoutes(e *echo.Echo) {
	arm := []echo.MiddlewareFunc{s.requireToken, s.armRequest}
	const sub = "/subscriptions/:sub/providers/Microsoft.Scheduler/jobCollections"
	const rg = "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Scheduler/jobCollections"
	const jc = rg + "/:jc"
	const job = jc + "/jobs/:job"
	e.GET(sub, s.listCollections, arm...)
	e.GET(rg, s.listCollections, arm...)
	e.GET(jc, s.getCollection, arm...)
	e.PUT(jc, s.putCollection, arm...)
	e.PATCH(jc, s.patchCollection, arm...)
	e.DELETE(jc, s.deleteCollection, arm...)
	e.POST(jc+"/enable", s.enableCollection, arm...)
	e.POST(jc+"/disable", s.disableCollection, arm...)
	e.GET(jc+"/jobs", s.listJobs, arm...)
	e.GET(job, s.getJob, arm...)
	e.PUT(job, s.putJob, arm...)
	e.PATCH(job, s.patchJob, arm...)
	e.DELETE(job, s.deleteJob, arm...)
	e.POST(job+"/run", s.runJob, arm...)
	e.GET(job+"/history", s.listHistory, arm...)
}
