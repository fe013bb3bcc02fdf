package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// chainOf is the middleware of route rt: its access group's chain, then
// requireRole when the route needs a role.
func (s *Server) chainOf(rt route) []echo.MiddlewareFunc {
	if rt.role == anyRole {
		return rt.access.chain
	}
	return append(append([]echo.MiddlewareFunc{}, rt.access.chain...), s.requireRole(rt.role))
}

// requireRole lets requests through whose actor has at least need in the
// workspace of the path (:ws or :sub), deciding with catalog.Authorize's
// rule (RoleOf). An API token that does not cover the workspace, or a
// role below need, gets 403 naming the role needed; a user who is not a
// member goes on to the handler, which answers as it always has (403 or
// 404). The role found stays in the request's memo (actorOf), where
// roleIn finds it for the page's controls.
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
			return next(c)
		}
	}
}

// roleIn is the request's role in workspace ws, as catalog.RoleOf says
// (remembered by the request's memo: the one requireRole found is not
// read again); "" on errors and for non-members.
func (s *Server) roleIn(c echo.Context, ws string) models.Role {
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
