package handlers

import (
	"github.com/labstack/echo/v4"

	"sked/web"
)

// The job form's "Skip days in calendars" (recurrence.calendars): the
// calendars of the workspace it offers.

// calendarOptions are the names of the calendars of workspace ws, for the
// form's choice.
func (s *Server) calendarOptions(c echo.Context, ws string) []string {
	rows, err := s.store.CalendarsOf(c.Request().Context(), ws)
	if err != nil {
		s.log.Error("job form: list calendars", "workspace", ws, "err", err)
		return nil
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Name
	}
	return out
}

// withCalendars gives the form the calendars of its workspace to choose
// from, and their page.
func (s *Server) withCalendars(c echo.Context, f web.JobForm) web.JobForm {
	f.CalendarOptions = s.calendarOptions(c, f.Collection.Workspace)
	f.CalendarsURL = web.CalendarsPath(f.Collection.Workspace)
	return f
}
