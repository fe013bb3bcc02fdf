package handlers

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// route is one row of the route table: a method and a path, the handler
// that answers them, and the access group whose middleware runs first.
type route struct {
	method  string
	path    string
	handler echo.HandlerFunc
	access  access
}

// access is a named middleware chain that routes share. The name is for
// people and tests (TestRoutesTable); the chain runs in order, after the
// global middleware of routes.
type access struct {
	name  string
	chain []echo.MiddlewareFunc
}

// routes registers the global middleware and then every route of the
// table. The global middleware runs for every request, known path or
// not: path canonicalisation (before routing), panic recovery, request
// id, request log, body limit (skipBodyLimit lets the import routes bound
// their bodies themselves), security headers and the input gate.
// Middleware of the access groups is attached per route, not through
// echo groups, so that unknown paths answer 404 and wrong methods 405.
func (s *Server) routes(e *echo.Echo) {
	e.Pre(canonicalARMPath)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{LogErrorFunc: recovered}))
	e.Use(requestID)
	e.Use(s.logRequests)
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "1M", Skipper: skipBodyLimit}))
	e.Use(securityHeaders(hstsFor(s.baseURL)))
	e.Use(s.inputGate)

	for _, r := range s.routeTable() {
		e.Add(r.method, r.path, r.handler, s.chainOf(r)...)
	}
}

// routeTable is every route, in registration order, with its access
// group. The groups are:
//
//   - probe: health, readiness and metrics, for operators' probes; no
//     middleware.
//   - asset: the static files; no middleware.
//   - visitor: the pages anyone may open (setup, sign-in with a password
//     or OpenID Connect, sign-out): the
//     session, if any, and the CSRF check (every state-changing request
//     carries the token).
//   - signedIn: the pages and their htmx fragments for signed-in users:
//     visitor's chain and requireUser; each page then checks that the user
//     is a member of the path's workspace.
//   - admin: the users pages: signedIn's chain and requireAdmin.
//   - apiToken: the JSON APIs of Sked (preview, import and export,
//     calendars, notifications): a bearer API token.
//   - armAPI: the Azure Scheduler REST API 2016-03-01 (SPEC §7): a bearer
//     API token, then api-version and workspace membership (armRequest).
//   - feedToken: a job's calendar feed, which carries its own token in the
//     URL (jobfeed.go); no middleware.
func (s *Server) routeTable() []route {
	probe := access{name: "probe"}
	asset := access{name: "asset"}
	visitor := access{name: "visitor", chain: []echo.MiddlewareFunc{s.loadSession, s.csrf}}
	signedIn := access{name: "signedIn", chain: append(slices.Clip(visitor.chain), s.requireUser)}
	admin := access{name: "admin", chain: append(slices.Clip(signedIn.chain), requireAdmin)}
	apiToken := access{name: "apiToken", chain: []echo.MiddlewareFunc{s.requireToken}}
	armAPI := access{name: "armAPI", chain: []echo.MiddlewareFunc{s.requireToken, s.armRequest}}
	feedToken := access{name: "feedToken"}

	const (
		get, post, put, patch, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete

		// The Azure Scheduler REST API.
		armSub = "/subscriptions/:sub/providers/Microsoft.Scheduler/jobCollections"
		armRG  = "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Scheduler/jobCollections"
		armJC  = armRG + "/:jc"
		armJob = armJC + "/jobs/:job"

		// The pages of a collection and its jobs.
		coll = "/c/:ws/:rg/:jc"
		job  = coll + "/jobs/:job"

		// The calendars' API and pages.
		calAPI  = "/api/v1/workspaces/:ws/calendars"
		calPage = "/w/:ws/calendars"

		// The notifications' API (SPEC §13.3).
		chanAPI  = "/api/v1/workspaces/:ws/channels"
		alertAPI = "/api/v1/workspaces/:ws/alerts"
	)

	return []route{
		{get, "/healthz", s.healthz, probe},
		{get, "/readyz", s.readyz, probe},
		{get, "/metrics", s.metrics, probe},
		{get, "/static/*", s.staticFile, asset},
		{post, "/api/v1/preview", s.preview, apiToken},

		{get, "/setup", s.setupPage, visitor},
		{post, "/setup", s.setupSubmit, visitor},
		{get, "/signin", s.signInPage, visitor},
		{post, "/signin", s.signInSubmit, visitor},
		{post, "/signout", s.signOut, visitor},
		{get, "/signin/oidc", s.signInOIDCStart, visitor},
		{get, "/signin/oidc/callback", s.signInOIDCCallback, visitor},

		{get, "/", s.dashboard, signedIn},
		{get, "/jobs", s.allJobsPage, signedIn},

		// The Azure Scheduler REST API 2016-03-01 (SPEC §7).
		{get, armSub, s.listCollections, armAPI},
		{get, armRG, s.listCollections, armAPI},
		{get, armJC, s.getCollection, armAPI},
		{put, armJC, s.putCollection, armAPI},
		{patch, armJC, s.patchCollection, armAPI},
		{del, armJC, s.deleteCollection, armAPI},
		{post, armJC + "/enable", s.enableCollection, armAPI},
		{post, armJC + "/disable", s.disableCollection, armAPI},
		{get, armJC + "/jobs", s.listJobs, armAPI},
		{get, armJob, s.getJob, armAPI},
		{put, armJob, s.putJob, armAPI},
		{patch, armJob, s.patchJob, armAPI},
		{del, armJob, s.deleteJob, armAPI},
		{post, armJob + "/run", s.runJob, armAPI},
		{get, armJob + "/history", s.listHistory, armAPI},

		// The job form, its live preview, the new collection form, and the
		// import and export pages.
		{get, "/collections/new", s.newCollectionPage, signedIn},
		{post, "/collections/new", s.newCollectionSubmit, signedIn},
		{get, coll + "/jobs/new", s.newJobPage, signedIn},
		{post, coll + "/jobs/new", s.jobFormSubmit, signedIn},
		{get, coll + "/jobs/:job/edit", s.editJobPage, signedIn},
		{post, coll + "/jobs/:job/edit", s.jobFormSubmit, signedIn},
		{post, coll + "/jobs/preview", s.jobFormPreview, signedIn},
		{get, "/import", s.importPage, signedIn},
		{post, "/import", s.importSubmit, signedIn},
		{get, "/import/runs/:id", s.importProgress, signedIn},
		{get, "/export", s.exportFile, signedIn},

		// People rather than jobs: the user's own account (password,
		// sessions), the user's API tokens, the users (administrators) and
		// the members of a workspace.
		{get, "/account", s.accountPage, signedIn},
		{post, "/account/password", s.changePassword, signedIn},
		{post, "/account/sessions/:id/end", s.endSession, signedIn},
		{post, "/account/sessions/end-others", s.endOtherSessions, signedIn},
		{post, "/account/sessions/end-all", s.endAllSessions, signedIn},
		{get, "/tokens", s.tokensPage, signedIn},
		{post, "/tokens", s.createToken, signedIn},
		{post, "/tokens/:id/revoke", s.revokeToken, signedIn},
		{get, "/users", s.usersPage, admin},
		{post, "/users", s.createUser, admin},
		{post, "/users/:id/disable", s.disableUser, admin},
		{post, "/users/:id/enable", s.enableUser, admin},
		{post, "/users/:id/password", s.resetPassword, admin},
		{get, "/workspaces/:ws/members", s.membersPage, signedIn},
		{post, "/workspaces/:ws/members", s.addMember, signedIn},
		{post, "/workspaces/:ws/members/:id/remove", s.removeMember, signedIn},
		{post, "/workspaces/:ws/members/:id/role", s.setMemberRole, signedIn},
		{get, "/workspaces", s.workspacesPage, signedIn},
		{post, "/workspaces", s.createWorkspace, signedIn},
		{post, "/workspaces/:ws/rename", s.renameWorkspace, signedIn},
		{post, "/workspaces/:ws/delete", s.deleteWorkspace, signedIn},

		// The workspaces and their members for API tokens (SPEC §13.4).
		{get, workspacesAPI, s.apiListWorkspaces, apiToken},
		{get, workspacesAPI + "/:ws", s.apiGetWorkspace, apiToken},
		{put, workspacesAPI + "/:ws", s.apiPutWorkspace, apiToken},
		{patch, workspacesAPI + "/:ws", s.apiPatchWorkspace, apiToken},
		{del, workspacesAPI + "/:ws", s.apiDeleteWorkspace, apiToken},
		{get, workspacesAPI + "/:ws/members", s.apiListMembers, apiToken},
		{put, workspacesAPI + "/:ws/members/:username", s.apiPutMember, apiToken},
		{del, workspacesAPI + "/:ws/members/:username", s.apiDeleteMember, apiToken},

		// Import and export for API tokens (SPEC §8); the import reads
		// bodies up to catalog.MaxImportBytes itself (skipBodyLimit).
		{post, importPath, s.importFile, apiToken},
		{get, exportPath, s.exportFile, apiToken},

		// The collection and job pages (SPEC §9); every change is a POST.
		{get, coll, s.collectionPage, signedIn},
		{post, coll + "/enable", s.collectionEnable, signedIn},
		{post, coll + "/disable", s.collectionDisable, signedIn},
		{get, job, s.jobPage, signedIn},
		{get, job + "/history", s.jobHistoryPage, signedIn},
		{get, job + "/timeline", s.jobTimeline, signedIn},
		{post, job + "/run", s.jobRunNow, signedIn},
		{post, job + "/enable", s.jobEnable, signedIn},
		{post, job + "/disable", s.jobDisable, signedIn},
		{get, job + "/delete", s.jobDeleteConfirm, signedIn},
		{post, job + "/delete", s.jobDelete, signedIn},
		{get, job + "/export.json", s.jobExport, signedIn},
		{get, job + "/calendar.ics", s.jobFeed, feedToken},

		// The calendars' REST API (SPEC §13.6): API token holders who are
		// members of the workspace ({ws} is its name, the ARM
		// subscription id).
		{get, calAPI, s.apiListCalendars, apiToken},
		{get, calAPI + "/:name", s.apiGetCalendar, apiToken},
		{put, calAPI + "/:name", s.apiPutCalendar, apiToken},
		{del, calAPI + "/:name", s.apiDeleteCalendar, apiToken},
		{post, calAPI + "/:name/import", s.apiImportCalendar, apiToken},

		// The notifications' REST API (SPEC §13.3): channels, alert rules
		// and the delivery log, for API token holders who are members of
		// the workspace.
		{get, chanAPI, s.apiListChannels, apiToken},
		{get, chanAPI + "/:name", s.apiGetChannel, apiToken},
		{put, chanAPI + "/:name", s.apiPutChannel, apiToken},
		{del, chanAPI + "/:name", s.apiDeleteChannel, apiToken},
		{post, chanAPI + "/:name/test", s.apiTestChannel, apiToken},
		{get, alertAPI, s.apiListAlerts, apiToken},
		{get, alertAPI + "/:name", s.apiGetAlert, apiToken},
		{put, alertAPI + "/:name", s.apiPutAlert, apiToken},
		{del, alertAPI + "/:name", s.apiDeleteAlert, apiToken},
		{get, "/api/v1/workspaces/:ws/deliveries", s.apiDeliveries, apiToken},

		// The calendar pages and the month view of a workspace (SPEC
		// §13.6).
		{get, calPage, s.calendarsPage, signedIn},
		{get, calPage + "/new", s.calendarNewPage, signedIn},
		{post, calPage + "/new", s.calendarCreate, signedIn},
		{get, calendarImportPagePath, s.calendarImportPage, signedIn},
		{post, calendarImportPagePath, s.calendarImportSubmit, signedIn},
		{get, calPage + "/:name", s.calendarPage, signedIn},
		{get, calPage + "/:name/edit", s.calendarEditPage, signedIn},
		{post, calPage + "/:name/edit", s.calendarSave, signedIn},
		{get, calPage + "/:name/export.ics", s.calendarExport, signedIn},
		{get, calPage + "/:name/delete", s.calendarDeleteConfirm, signedIn},
		{post, calPage + "/:name/delete", s.calendarDelete, signedIn},
		{get, "/w/:ws/month", s.monthPage, signedIn},
		{get, "/w/:ws/month/day", s.monthDay, signedIn},
	}
}
