package handlers

import (
	"strings"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// ctxSwitcher is the context key of the loader of the request's
// workspace switcher, set by requireUser for signed-in users: page calls
// it, so that only full pages read the user's memberships.
const ctxSwitcher = "switcher"

// setSwitcher lets page build the header's workspace switcher for c.
func (s *Server) setSwitcher(c echo.Context) {
	c.Set(ctxSwitcher, func() *web.WorkspaceSwitcher { return s.workspaceSwitcher(c) })
}

// switcherOf is the workspace switcher of c's page, nil when c has none
// (signed out, no memberships, or the memberships could not be read).
func switcherOf(c echo.Context) *web.WorkspaceSwitcher {
	load, ok := c.Get(ctxSwitcher).(func() *web.WorkspaceSwitcher)
	if !ok {
		return nil
	}
	return load()
}

// workspaceSwitcher reads the signed-in user's memberships and presents
// the switcher for the workspace of c's page. A failed read is logged and
// leaves the switcher out rather than failing the page.
func (s *Server) workspaceSwitcher(c echo.Context) *web.WorkspaceSwitcher {
	user := currentUser(c)
	if user == nil {
		return nil
	}
	ms, err := s.store.MembershipsOf(c.Request().Context(), user.ID)
	if err != nil {
		s.log.Warn("workspace switcher left out", "user", user.Username, "err", err)
		return nil
	}
	return web.NewWorkspaceSwitcher(ms, chosenWorkspace(c), switchTargetOf(c.Path()))
}

// chosenWorkspace is the workspace c's page is about as the request names
// it: the path's (:ws), else the ?ws= query of the dashboard and "All
// jobs"; "" is all the user's workspaces.
func chosenWorkspace(c echo.Context) string {
	if ws := c.Param("ws"); ws != "" {
		return ws
	}
	return strings.TrimSpace(c.QueryParam("ws"))
}

// switchTargetOf is where the switcher's choices lead from the page of
// route (a path of the route table): the same page where it is per
// workspace, else the dashboard.
func switchTargetOf(route string) web.SwitchTarget {
	switch {
	case route == "/jobs":
		return web.SwitchToAllJobs
	case route == "/calendars" || strings.HasPrefix(route, "/w/:ws/calendars"):
		return web.SwitchToCalendars
	case strings.HasPrefix(route, "/w/:ws/month"):
		return web.SwitchToMonth
	case route == "/workspaces" || strings.HasPrefix(route, "/workspaces/:ws/"):
		return web.SwitchToMembers
	case strings.HasPrefix(route, "/w/:ws/running"):
		return web.SwitchToRunning
	case strings.HasPrefix(route, "/w/:ws/channels"):
		return web.SwitchToChannels
	case strings.HasPrefix(route, "/w/:ws/audit"):
		return web.SwitchToAudit
	case route == "/collections/new":
		return web.SwitchToNewCollection
	}
	return web.SwitchToDashboard
}
