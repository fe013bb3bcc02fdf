package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"sked/models/jobdef"
	"sked/scheduler/catalog"
)

// apiListCalendars answers GET …/calendars: {"value": [calendar, …]} in
// name order, each as GET answers it.
func (s *Server) apiListCalendars(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	rows, err := s.store.CalendarsOf(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	out := make([]json.RawMessage, 0, len(rows))
	for i := range rows {
		doc, err := catalog.CalendarDocument(&rows[i])
		if err != nil {
			return err
		}
		out = append(out, doc)
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiGetCalendar answers GET …/calendars/{name}: the calendar JSON with
// name, version and updatedAt; with ?format=ics the calendar as an
// iCalendar file.
func (s *Server) apiGetCalendar(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	row, err := s.store.CalendarByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return calendarNotFound(err, c.Param("name"))
	}
	switch f := c.QueryParam("format"); f {
	case "ics":
		return s.writeCalendarICS(c, ws, row)
	case "", "json":
		doc, err := catalog.CalendarDocument(row)
		if err != nil {
			return err
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, doc)
	default:
		return badRequest("format", fmt.Sprintf("%q is not json or ics", f))
	}
}

// apiPutCalendar answers PUT …/calendars/{name}: the body is the calendar
// JSON; 201 when created, 200 when replaced, with the stored calendar.
func (s *Server) apiPutCalendar(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("put calendar: read body: %w", err)
	}
	ctx := c.Request().Context()
	_, created, err := s.calendars.PutCalendar(ctx, actorOf(c), ws, c.Param("name"), body)
	if err != nil {
		return err
	}
	row, err := s.store.CalendarByName(ctx, ws, c.Param("name"))
	if err != nil {
		return err
	}
	doc, err := catalog.CalendarDocument(row)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("calendar saved", "workspace", ws, "calendar", row.Name, "version", row.Version, "user", currentUser(c).Username)
	return c.Blob(status, echo.MIMEApplicationJSONCharsetUTF8, doc)
}

// apiDeleteCalendar answers DELETE …/calendars/{name}: 200, 409 naming
// the jobs that still exclude it, 404 when there is no such calendar.
func (s *Server) apiDeleteCalendar(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	if err := s.calendars.DeleteCalendar(c.Request().Context(), actorOf(c), ws, c.Param("name")); err != nil {
		return calendarNotFound(err, c.Param("name"))
	}
	s.log.Info("calendar deleted", "workspace", ws, "calendar", c.Param("name"), "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, map[string]string{"deleted": c.Param("name")})
}

// apiImportCalendar answers POST …/calendars/{name}/import: the body is an
// iCalendar file (at most 1 MB); dryRun (default true) reports what would
// be added and changes nothing; timeZone sets the zone of a calendar the
// import creates (default: the file's X-WR-TIMEZONE, else UTC).
func (s *Server) apiImportCalendar(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	dry := true
	if v := c.QueryParam("dryRun"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return &jobdef.ValidationError{Problems: []jobdef.Problem{{Path: "dryRun", Message: fmt.Sprintf("%q is not true or false", v)}}}
		}
		dry = b
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("import calendar: read body: %w", err)
	}
	rep, err := s.calendars.ImportCalendar(c.Request().Context(), actorOf(c), catalog.CalendarImport{
		WorkspaceID: ws, Name: c.Param("name"), ICS: body, DryRun: dry,
		TimeZone: c.QueryParam("timeZone"),
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rep)
}

// calendarNotFound names the calendar in a 404.
func calendarNotFound(err error, name string) error {
	if status, _ := classify(err); status == http.StatusNotFound {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The calendar %q does not exist in this workspace.", name))
	}
	return err
}
