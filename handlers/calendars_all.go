package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// allCalendarsPage lists the calendars of every workspace the user is a
// member of (the workspace switcher's "All my workspaces"), a section per
// workspace; each workspace's own page is where calendars are changed.
func (s *Server) allCalendarsPage(c echo.Context) error {
	ctx := c.Request().Context()
	ms, err := s.store.MembershipsOf(ctx, currentUser(c).ID)
	if err != nil {
		return err
	}
	now := s.clock()
	var v web.AllCalendarsView
	for _, m := range ms {
		rows, err := s.calendarRows(ctx, m.ID, now)
		if err != nil {
			return err
		}
		v.Workspaces = append(v.Workspaces, web.NewWorkspaceCalendars(m, rows))
	}
	return render(c, http.StatusOK, web.AllCalendarsPage(page(c, "Calendars"), v))
}
