package handlers

import (
	"net/http"
	"sked/models"
	"sked/models/monitordef"
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// route is one row of the route table: a method and a path, the handler
// that answers them, the access group whose middleware runs first, and
// the role the actor needs in the path's workspace (SPEC §13.4; checked
// by requireRole through catalog.Authorize after the group's chain), or
// anyRole for routes without a workspace in their path or whose rights
// the write service alone decides.
type route struct {
	method  string
	path    string
	handler echo.HandlerFunc
	access  access
	role    models.Role
}

// anyRole is the role of a route that checks none itself.
const anyRole models.Role = ""

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
//   - asset: the static files and the OpenAPI document; no middleware.
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
//   - pingToken: a heartbeat monitor's pings, which carry its token in the
//     URL (monitors_ping.go); no middleware (no session, no CSRF).
func (s *Server) routeTable() []route {
	probe := access{name: "probe"}
	asset := access{name: "asset"}
	visitor := access{name: "visitor", chain: []echo.MiddlewareFunc{s.loadSession, s.csrf}}
	signedIn := access{name: "signedIn", chain: append(slices.Clip(visitor.chain), s.requireUser)}
	admin := access{name: "admin", chain: append(slices.Clip(signedIn.chain), requireAdmin)}
	apiToken := access{name: "apiToken", chain: []echo.MiddlewareFunc{s.requireToken}}
	armAPI := access{name: "armAPI", chain: []echo.MiddlewareFunc{s.requireToken, s.armRequest}}
	feedToken := access{name: "feedToken"}
	pingToken := access{name: "pingToken"}

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

		// The target limits' API and page (SPEC §16.2).
		targetAPI = "/api/v1/workspaces/:ws/targets"
		// Heartbeat monitors (SPEC §17.3): the API, the pages, the pings.
		monAPI  = "/api/v1/workspaces/:ws/monitors"
		monPage = "/w/:ws/monitors"
		ping    = "/ping/:token"

		// The notifications' pages of a workspace.
		chanPage  = "/w/:ws/channels"
		alertPage = "/w/:ws/alerts"
	)

	return []route{
		{get, "/healthz", s.healthz, probe, anyRole},
		{get, "/readyz", s.readyz, probe, anyRole},
		{get, "/metrics", s.metrics, probe, anyRole},
		{get, "/static/*", s.staticFile, asset, anyRole},
		{get, openAPIPath, s.openAPI, asset, anyRole},
		{post, "/api/v1/preview", s.preview, apiToken, anyRole},

		{get, "/setup", s.setupPage, visitor, anyRole},
		{post, "/setup", s.setupSubmit, visitor, anyRole},
		{get, "/signin", s.signInPage, visitor, anyRole},
		{post, "/signin", s.signInSubmit, visitor, anyRole},
		{post, "/signout", s.signOut, visitor, anyRole},
		{get, "/signin/oidc", s.signInOIDCStart, visitor, anyRole},
		{get, "/signin/oidc/callback", s.signInOIDCCallback, visitor, anyRole},

		{get, "/", s.dashboard, signedIn, anyRole},
		{get, "/jobs", s.allJobsPage, signedIn, anyRole},
		// Bulk actions on jobs of any workspace: the catalog authorises
		// each job's workspace (SPEC §13.4).
		{post, "/jobs/bulk", s.allJobsBulk, signedIn, anyRole},
		{post, "/api/v1/jobs/bulk", s.apiBulkJobs, apiToken, anyRole},

		// The Azure Scheduler REST API 2016-03-01 (SPEC §7).
		{get, armSub, s.listCollections, armAPI, models.RoleReader},
		{get, armRG, s.listCollections, armAPI, models.RoleReader},
		{get, armJC, s.getCollection, armAPI, models.RoleReader},
		{put, armJC, s.putCollection, armAPI, models.RoleEditor},
		{patch, armJC, s.patchCollection, armAPI, models.RoleEditor},
		{del, armJC, s.deleteCollection, armAPI, models.RoleEditor},
		{post, armJC + "/enable", s.enableCollection, armAPI, models.RoleOperator},
		{post, armJC + "/disable", s.disableCollection, armAPI, models.RoleOperator},
		{get, armJC + "/jobs", s.listJobs, armAPI, models.RoleReader},
		{get, armJob, s.getJob, armAPI, models.RoleReader},
		{put, armJob, s.putJob, armAPI, models.RoleEditor},
		{patch, armJob, s.patchJob, armAPI, models.RoleEditor},
		{del, armJob, s.deleteJob, armAPI, models.RoleEditor},
		{post, armJob + "/run", s.runJob, armAPI, models.RoleOperator},
		{get, armJob + "/history", s.listHistory, armAPI, models.RoleReader},
		{post, armJob + "/history/:id/rerun", s.apiRerun, armAPI, models.RoleOperator},

		// The job form, its live preview, the new collection form, and the
		// import and export pages.
		{get, "/collections/new", s.newCollectionPage, signedIn, anyRole},
		{post, "/collections/new", s.newCollectionSubmit, signedIn, anyRole},
		{get, coll + "/jobs/new", s.newJobPage, signedIn, models.RoleEditor},
		{post, coll + "/jobs/new", s.jobFormSubmit, signedIn, models.RoleEditor},
		{get, coll + "/jobs/:job/edit", s.editJobPage, signedIn, models.RoleEditor},
		{post, coll + "/jobs/:job/edit", s.jobFormSubmit, signedIn, models.RoleEditor},
		{post, coll + "/jobs/preview", s.jobFormPreview, signedIn, models.RoleEditor},
		{get, "/import", s.importPage, signedIn, anyRole},
		{post, "/import", s.importSubmit, signedIn, anyRole},
		{get, "/import/runs/:id", s.importProgress, signedIn, anyRole},
		{get, "/export", s.exportFile, signedIn, anyRole},

		// People rather than jobs: the user's own account (password,
		// sessions), the user's API tokens, the users (administrators) and
		// the members of a workspace.
		{get, "/account", s.accountPage, signedIn, anyRole},
		{post, "/account/password", s.changePassword, signedIn, anyRole},
		{post, "/account/time-zone", s.setTimeZone, signedIn, anyRole},
		{post, "/account/sessions/:id/end", s.endSession, signedIn, anyRole},
		{post, "/account/sessions/end-others", s.endOtherSessions, signedIn, anyRole},
		{post, "/account/sessions/end-all", s.endAllSessions, signedIn, anyRole},
		{get, "/tokens", s.tokensPage, signedIn, anyRole},
		{post, "/tokens", s.createToken, signedIn, anyRole},
		{post, "/tokens/:id/revoke", s.revokeToken, signedIn, anyRole},
		{get, "/users", s.usersPage, admin, anyRole},
		{post, "/users", s.createUser, admin, anyRole},
		{post, "/users/:id/disable", s.disableUser, admin, anyRole},
		{post, "/users/:id/enable", s.enableUser, admin, anyRole},
		{post, "/users/:id/password", s.resetPassword, admin, anyRole},
		{get, "/workspaces/:ws/members", s.membersPage, signedIn, models.RoleReader},
		{post, "/workspaces/:ws/members", s.addMember, signedIn, anyRole},
		{post, "/workspaces/:ws/members/:id/remove", s.removeMember, signedIn, anyRole},
		{post, "/workspaces/:ws/members/:id/role", s.setMemberRole, signedIn, anyRole},
		{get, "/workspaces", s.workspacesPage, signedIn, anyRole},
		{post, "/workspaces", s.createWorkspace, signedIn, anyRole},
		{post, "/workspaces/:ws/rename", s.renameWorkspace, signedIn, anyRole},
		{post, "/workspaces/:ws/delete", s.deleteWorkspace, signedIn, anyRole},

		// The workspaces and their members for API tokens (SPEC §13.4).
		{get, workspacesAPI, s.apiListWorkspaces, apiToken, anyRole},
		{get, workspacesAPI + "/:ws", s.apiGetWorkspace, apiToken, models.RoleReader},
		{put, workspacesAPI + "/:ws", s.apiPutWorkspace, apiToken, anyRole},
		{patch, workspacesAPI + "/:ws", s.apiPatchWorkspace, apiToken, anyRole},
		{del, workspacesAPI + "/:ws", s.apiDeleteWorkspace, apiToken, anyRole},
		{get, workspacesAPI + "/:ws/members", s.apiListMembers, apiToken, models.RoleReader},
		{put, workspacesAPI + "/:ws/members/:username", s.apiPutMember, apiToken, anyRole},
		{del, workspacesAPI + "/:ws/members/:username", s.apiDeleteMember, apiToken, anyRole},

		// Import and export for API tokens (SPEC §8); the import reads
		// bodies up to catalog.MaxImportBytes itself (skipBodyLimit).
		{post, importPath, s.importFile, apiToken, anyRole},
		{get, exportPath, s.exportFile, apiToken, anyRole},

		// The collection and job pages (SPEC §9); every change is a POST.
		{get, coll, s.collectionPage, signedIn, models.RoleReader},
		{post, coll + "/enable", s.collectionEnable, signedIn, models.RoleOperator},
		{post, coll + "/disable", s.collectionDisable, signedIn, models.RoleOperator},
		{post, coll + "/note", s.collectionNote, signedIn, models.RoleOperator},
		{get, job, s.jobPage, signedIn, models.RoleReader},
		{get, job + "/history", s.jobHistoryPage, signedIn, models.RoleReader},
		{get, job + "/timeline", s.jobTimeline, signedIn, models.RoleReader},
		{get, job + "/trends", s.jobTrends, signedIn, models.RoleReader},
		{get, job + "/deadline", s.jobDeadline, signedIn, models.RoleReader},
		{get, job + "/history/:id", s.executionPage, signedIn, models.RoleReader},
		{post, job + "/history/:id/rerun", s.executionRerun, signedIn, models.RoleOperator},
		{post, job + "/run", s.jobRunNow, signedIn, models.RoleOperator},
		{post, job + "/backfill", s.jobBackfill, signedIn, models.RoleOperator},
		{get, job + "/backfills", s.jobBackfills, signedIn, models.RoleReader},
		{post, job + "/backfills/:id/cancel", s.jobCancelBackfill, signedIn, models.RoleOperator},
		{post, job + "/enable", s.jobEnable, signedIn, models.RoleOperator},
		{post, job + "/disable", s.jobDisable, signedIn, models.RoleOperator},
		{post, job + "/note", s.jobNote, signedIn, models.RoleOperator},
		{get, job + "/delete", s.jobDeleteConfirm, signedIn, models.RoleEditor},
		{post, job + "/delete", s.jobDelete, signedIn, models.RoleEditor},
		{get, job + "/export.json", s.jobExport, signedIn, models.RoleEditor},
		{get, job + "/calendar.ics", s.jobFeed, feedToken, anyRole},

		// The calendars' REST API (SPEC §13.6): API token holders who are
		// members of the workspace ({ws} is its name, the ARM
		// subscription id).
		{get, calAPI, s.apiListCalendars, apiToken, models.RoleReader},
		{get, calAPI + "/:name", s.apiGetCalendar, apiToken, models.RoleReader},
		{put, calAPI + "/:name", s.apiPutCalendar, apiToken, models.RoleEditor},
		{del, calAPI + "/:name", s.apiDeleteCalendar, apiToken, models.RoleEditor},
		{post, calAPI + "/:name/import", s.apiImportCalendar, apiToken, models.RoleEditor},

		// The notifications' REST API (SPEC §13.3): channels, alert rules
		// and the delivery log, for API token holders who are members of
		// the workspace.
		{get, chanAPI, s.apiListChannels, apiToken, models.RoleReader},
		{get, chanAPI + "/:name", s.apiGetChannel, apiToken, models.RoleReader},
		{put, chanAPI + "/:name", s.apiPutChannel, apiToken, models.RoleOwner},
		{del, chanAPI + "/:name", s.apiDeleteChannel, apiToken, models.RoleOwner},
		{post, chanAPI + "/:name/test", s.apiTestChannel, apiToken, models.RoleOwner},
		{get, alertAPI, s.apiListAlerts, apiToken, models.RoleReader},
		{get, alertAPI + "/:name", s.apiGetAlert, apiToken, models.RoleReader},
		{put, alertAPI + "/:name", s.apiPutAlert, apiToken, models.RoleOwner},
		{del, alertAPI + "/:name", s.apiDeleteAlert, apiToken, models.RoleOwner},
		{get, "/api/v1/workspaces/:ws/deliveries", s.apiDeliveries, apiToken, models.RoleReader},

		// The backfills of a job (SPEC §16.3).
		{post, backfillAPI + "/backfill", s.apiBackfill, apiToken, models.RoleOperator},
		{get, backfillAPI + "/backfills", s.apiBackfills, apiToken, models.RoleReader},
		{get, backfillAPI + "/backfills/:id", s.apiGetBackfill, apiToken, models.RoleReader},
		{post, backfillAPI + "/backfills/:id/cancel", s.apiCancelBackfill, apiToken, models.RoleOperator},
		// Target limits (SPEC §16.2): members read them, editors change them.
		{get, targetAPI, s.apiListTargets, apiToken, models.RoleReader},
		{get, targetAPI + "/:host", s.apiGetTarget, apiToken, models.RoleReader},
		{put, targetAPI + "/:host", s.apiPutTarget, apiToken, models.RoleEditor},
		{del, targetAPI + "/:host", s.apiDeleteTarget, apiToken, models.RoleEditor},
		{get, "/w/:ws/targets", s.targetsPage, signedIn, models.RoleReader},
		{post, "/w/:ws/targets", s.targetSave, signedIn, models.RoleEditor},
		{post, "/w/:ws/targets/:host/delete", s.targetRemove, signedIn, models.RoleEditor},
		// Heartbeat monitors (SPEC §17.3): readers see them (without
		// their ping URLs), editors change them.
		{get, monAPI, s.apiListMonitors, apiToken, models.RoleReader},
		{get, monAPI + "/:name", s.apiGetMonitor, apiToken, models.RoleReader},
		{put, monAPI + "/:name", s.apiPutMonitor, apiToken, models.RoleEditor},
		{del, monAPI + "/:name", s.apiDeleteMonitor, apiToken, models.RoleEditor},
		{post, monAPI + "/:name/rotate", s.apiRotateMonitor, apiToken, models.RoleEditor},
		{get, monPage, s.monitorsPage, signedIn, models.RoleReader},
		{get, monPage + "/new", s.monitorNewPage, signedIn, models.RoleEditor},
		{post, monPage + "/new", s.monitorCreate, signedIn, models.RoleEditor},
		{get, monPage + "/:name", s.monitorPage, signedIn, models.RoleReader},
		{get, monPage + "/:name/edit", s.monitorEditPage, signedIn, models.RoleEditor},
		{post, monPage + "/:name/edit", s.monitorSave, signedIn, models.RoleEditor},
		{post, monPage + "/:name/rotate", s.monitorRotate, signedIn, models.RoleEditor},
		{post, monPage + "/:name/delete", s.monitorDelete, signedIn, models.RoleEditor},
		{get, ping, s.ping(monitordef.PingSuccess), pingToken, anyRole},
		{post, ping, s.ping(monitordef.PingSuccess), pingToken, anyRole},
		{get, ping + "/start", s.ping(monitordef.PingStart), pingToken, anyRole},
		{post, ping + "/start", s.ping(monitordef.PingStart), pingToken, anyRole},
		{get, ping + "/fail", s.ping(monitordef.PingFail), pingToken, anyRole},
		{post, ping + "/fail", s.ping(monitordef.PingFail), pingToken, anyRole},

		// The audit log of a workspace (SPEC §13.5): every member reads it.
		{get, workspacesAPI + "/:ws/audit", s.apiAudit, apiToken, models.RoleReader},
		{get, "/w/:ws/audit", s.auditPage, signedIn, models.RoleReader},
		// A collection's signing secret (SPEC §13.3, signed job requests):
		// its API and the collection page's controls.
		{get, signingAPI, s.apiGetSigning, apiToken, models.RoleReader},
		{post, signingAPI, s.apiNewSigning, apiToken, models.RoleEditor},
		{del, signingAPI, s.apiDeleteSigning, apiToken, models.RoleEditor},
		{post, coll + "/signing-secret", s.signingNew, signedIn, models.RoleEditor},
		{post, coll + "/signing-secret/remove", s.signingRemove, signedIn, models.RoleEditor},

		// The notifications' pages: the Channels page of a workspace with
		// its delivery log, the alert rules' forms of the workspace,
		// collection and job pages, and the job page's bell.
		{get, chanPage, s.channelsPage, signedIn, models.RoleReader},
		{post, chanPage, s.channelCreate, signedIn, models.RoleOwner},
		{post, chanPage + "/:name/delete", s.channelDelete, signedIn, models.RoleOwner},
		{post, chanPage + "/:name/test", s.channelTest, signedIn, models.RoleOwner},
		{post, alertPage, s.alertAdd, signedIn, models.RoleOwner},
		{post, alertPage + "/:name/delete", s.alertRemove, signedIn, models.RoleOwner},
		{post, job + "/bell", s.jobBell, signedIn, models.RoleOwner},

		// The calendar pages and the month view of a workspace (SPEC
		// §13.6).
		{get, "/calendars", s.allCalendarsPage, signedIn, anyRole},
		{get, calPage, s.calendarsPage, signedIn, models.RoleReader},
		{get, calPage + "/new", s.calendarNewPage, signedIn, models.RoleEditor},
		{post, calPage + "/new", s.calendarCreate, signedIn, models.RoleEditor},
		{get, calendarImportPagePath, s.calendarImportPage, signedIn, models.RoleEditor},
		{post, calendarImportPagePath, s.calendarImportSubmit, signedIn, models.RoleEditor},
		{get, calPage + "/:name", s.calendarPage, signedIn, models.RoleReader},
		{get, calPage + "/:name/edit", s.calendarEditPage, signedIn, models.RoleEditor},
		{post, calPage + "/:name/edit", s.calendarSave, signedIn, models.RoleEditor},
		{get, calPage + "/:name/export.ics", s.calendarExport, signedIn, models.RoleEditor},
		{get, calPage + "/:name/delete", s.calendarDeleteConfirm, signedIn, models.RoleEditor},
		{post, calPage + "/:name/delete", s.calendarDelete, signedIn, models.RoleEditor},
		{get, "/w/:ws/month", s.monthPage, signedIn, models.RoleReader},
		{get, "/w/:ws/month/day", s.monthDay, signedIn, models.RoleReader},
		{get, "/w/:ws/running", s.runningPage, signedIn, models.RoleReader},
	}
}
