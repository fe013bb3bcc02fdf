package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// ctxRole is the context key of the request's role in the workspace of
// its path, set by requireRole.
const ctxRole = "role"

// routeRoles is the role each route with a workspace in its path (:ws, or
// :sub of the ARM API) needs there (SPEC §13.4), by "METHOD path" of the
// route table: reader to see, operator to run now, enable and disable,
// editor to create, change, delete, import and export. requireRole checks
// it before the handler runs, through catalog.Authorize, the one
// authorisation function; the write service checks its writes again.
// Routes whose rights the write service alone decides (members, workspace
// create, rename and delete: owners, or administrators for members) are
// not listed. TestRoleMatrix fails for a route of the table that has no
// rule.
var routeRoles = map[string]models.Role{}

func init() {
	const (
		armSub   = "/subscriptions/:sub/providers/Microsoft.Scheduler/jobCollections"
		armRG    = "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Scheduler/jobCollections"
		armJC    = armRG + "/:jc"
		armJob   = armJC + "/jobs/:job"
		coll     = "/c/:ws/:rg/:jc"
		job      = coll + "/jobs/:job"
		calAPI   = "/api/v1/workspaces/:ws/calendars"
		cal      = "/w/:ws/calendars"
		chanAPI  = "/api/v1/workspaces/:ws/channels"
		alertAPI = "/api/v1/workspaces/:ws/alerts"
		r, o, e  = models.RoleReader, models.RoleOperator, models.RoleEditor
		w        = models.RoleOwner // channels and alert rules (SPEC §13.4)
	)
	for k, v := range map[string]models.Role{
		"GET " + armSub: r, "GET " + armRG: r, "GET " + armJC: r, "GET " + armJC + "/jobs": r,
		"GET " + armJob: r, "GET " + armJob + "/history": r,
		"PUT " + armJC: e, "PATCH " + armJC: e, "DELETE " + armJC: e,
		"POST " + armJC + "/enable": o, "POST " + armJC + "/disable": o,
		"PUT " + armJob: e, "PATCH " + armJob: e, "DELETE " + armJob: e, "POST " + armJob + "/run": o,

		"GET " + coll + "/jobs/new": e, "POST " + coll + "/jobs/new": e,
		"GET " + coll + "/jobs/:job/edit": e, "POST " + coll + "/jobs/:job/edit": e, "POST " + coll + "/jobs/preview": e,
		"GET " + coll: r, "POST " + coll + "/enable": o, "POST " + coll + "/disable": o,
		"GET " + job: r, "GET " + job + "/history": r, "GET " + job + "/timeline": r,
		"POST " + job + "/run": o, "POST " + job + "/enable": o, "POST " + job + "/disable": o,
		"GET " + job + "/delete": e, "POST " + job + "/delete": e, "GET " + job + "/export.json": e,

		"GET /workspaces/:ws/members": r,
		"GET /api/v1/workspaces/:ws":  r, "GET /api/v1/workspaces/:ws/members": r,

		"GET " + calAPI: r, "GET " + calAPI + "/:name": r,
		"PUT " + calAPI + "/:name": e, "DELETE " + calAPI + "/:name": e, "POST " + calAPI + "/:name/import": e,

		"GET " + cal: r, "GET " + cal + "/new": e, "POST " + cal + "/new": e,
		"GET " + calendarImportPagePath: e, "POST " + calendarImportPagePath: e,
		"GET " + cal + "/:name": r, "GET " + cal + "/:name/edit": e, "POST " + cal + "/:name/edit": e,
		"GET " + cal + "/:name/export.ics": e, "GET " + cal + "/:name/delete": e, "POST " + cal + "/:name/delete": e,
		"GET /w/:ws/month": r, "GET /w/:ws/month/day": r,

		"GET " + chanAPI: r, "GET " + chanAPI + "/:name": r, "PUT " + chanAPI + "/:name": w,
		"DELETE " + chanAPI + "/:name": w, "POST " + chanAPI + "/:name/test": w,
		"GET " + alertAPI: r, "GET " + alertAPI + "/:name": r, "PUT " + alertAPI + "/:name": w,
		"DELETE " + alertAPI + "/:name": w, "GET /api/v1/workspaces/:ws/deliveries": r,
	} {
		routeRoles[k] = v
	}
}

// chainOf is the middleware of route rt: its access group's chain, then
// requireRole when routeRoles has a rule for it.
func (s *Server) chainOf(rt route) []echo.MiddlewareFunc {
	need, ok := routeRoles[rt.method+" "+rt.path]
	if !ok {
		return rt.access.chain
	}
	return append(append([]echo.MiddlewareFunc{}, rt.access.chain...), s.requireRole(need))
}

// requireRole lets requests through whose actor has at least need in the
// workspace of the path (:ws or :sub), deciding with catalog.Authorize's
// rule (RoleOf). An API token that does not cover the workspace, or a
// role below need, gets 403 naming the role needed; a user who is not a
// member goes on to the handler, which answers as it always has (403 or
// 404). The role is kept for the page's controls (roleIn).
func (s *Server) requireRole(need models.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ws := c.Param("ws")
			if ws == "" {
				ws = c.Param("sub")
			}
			actor := actorOf(c)
			role, err := s.catalog.RoleOf(c.Request().Context(), actor, ws)
			if err != nil {
				return err
			}
			if role == "" {
				return next(c)
			}
			if !role.Includes(need) {
				return &catalog.ForbiddenError{Workspace: ws, Need: need, Have: role, Token: actor.TokenID != 0}
			}
			c.Set(ctxRole, role)
			return next(c)
		}
	}
}

// roleIn is the request's role in workspace ws: the one requireRole
// found, or else what catalog.RoleOf says ("" on errors and for
// non-members).
func (s *Server) roleIn(c echo.Context, ws string) models.Role {
	if r, ok := c.Get(ctxRole).(models.Role); ok {
		return r
	}
	r, err := s.catalog.RoleOf(c.Request().Context(), actorOf(c), ws)
	if err != nil {
		return ""
	}
	return r
}

// authorize is catalog.Authorize for the request's actor.
func (s *Server) authorize(c echo.Context, ws string, need models.Role) error {
	return s.catalog.Authorize(c.Request().Context(), actorOf(c), ws, need)
}

// forbidden classifies the refusals of the role checks: 403 with a
// sentence naming the role needed.
func forbidden(err *catalog.ForbiddenError) (int, string) {
	msg := err.Error()
	return http.StatusForbidden, string(msg[0]-'a'+'A') + msg[1:] + "."
}
