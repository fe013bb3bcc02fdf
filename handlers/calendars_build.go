package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/caldef"
	"sked/models/problem"
	"sked/scheduler/recurrence"
	"sked/web"
)

// The view builders of the calendar pages: they read what a page shows
// and hand it to web's presenters.

// compiledCalendar parses and compiles a stored calendar.
func compiledCalendar(row *models.Calendar) (*caldef.Calendar, *recurrence.Calendar, error) {
	cal, err := caldef.Parse(row.Definition)
	if err != nil {
		return nil, nil, fmt.Errorf("calendar %s: %w", row.Name, err)
	}
	rc, err := recurrence.CompileCalendar(row.Name, cal)
	if err != nil {
		return nil, nil, fmt.Errorf("calendar %s: %w", row.Name, err)
	}
	return cal, rc, nil
}

// calendarsView builds the calendars list of ws.
func (s *Server) calendarsView(c echo.Context, ws string) (web.CalendarsPageView, error) {
	ctx := c.Request().Context()
	flash, err := takeFlash(c)
	if err != nil {
		return web.CalendarsPageView{Workspace: ws}, err
	}
	others, err := s.otherWorkspaces(c, ws, web.CalendarsPath)
	if err != nil {
		return web.CalendarsPageView{Workspace: ws}, err
	}
	v := web.NewCalendarsPageView(ws, flash, others)
	v.Rows, err = s.calendarRows(ctx, ws, s.clock())
	return v, err
}

// calendarRows is the list of the calendars of workspace ws at now.
func (s *Server) calendarRows(ctx context.Context, ws string, now time.Time) ([]web.CalendarRow, error) {
	rows, err := s.store.CalendarsOf(ctx, ws)
	if err != nil {
		return nil, err
	}
	var out []web.CalendarRow
	for i := range rows {
		row := &rows[i]
		cal, rc, err := compiledCalendar(row)
		if err != nil {
			return nil, err
		}
		jobs, err := s.store.JobsUsingCalendar(ctx, ws, row.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, web.NewCalendarRow(ws, row, cal, rc, jobs, now))
	}
	return out, nil
}

// calendarView builds a calendar's page for year.
func (s *Server) calendarView(c echo.Context, ws string, row *models.Calendar, year int) (web.CalendarPageView, error) {
	flash, err := takeFlash(c)
	if err != nil {
		return web.CalendarPageView{Workspace: ws, Name: row.Name}, err
	}
	cal, rc, err := compiledCalendar(row)
	if err != nil {
		return web.CalendarPageView{Workspace: ws, Name: row.Name}, err
	}
	jobs, err := s.store.JobsUsingCalendar(c.Request().Context(), ws, row.Name)
	if err != nil {
		return web.CalendarPageView{Workspace: ws, Name: row.Name}, err
	}
	return web.NewCalendarPageView(ws, row, cal, rc, year, jobs, flash), nil
}

// calendarForm is the form of the calendar row (nil: a new one).
func (s *Server) calendarForm(c echo.Context, ws string, row *models.Calendar) web.CalendarForm {
	return web.NewCalendarForm(ws, row, csrfToken(c))
}

// calendarFormBody is the calendar JSON of the form's fields; entries that
// are not a JSON array are a problem on "entries".
func calendarFormBody(f web.CalendarForm) ([]byte, error) {
	entries := bytes.TrimSpace([]byte(f.Entries))
	if len(entries) == 0 {
		entries = []byte("[]")
	}
	if !json.Valid(entries) || entries[0] != '[' {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "entries",
			Message: `must be a JSON array of entries, such as [{"date": "2026-12-24", "label": "Christmas Eve"}]`}}}
	}
	doc := map[string]any{"entries": json.RawMessage(entries)}
	if tz := strings.TrimSpace(f.TimeZone); tz != "" {
		doc["timeZone"] = tz
	}
	if f.Description != "" {
		doc["description"] = f.Description
	}
	return json.Marshal(doc)
}

// calendarFormErrors places the problems of a refused calendar: on the
// form's fields, and the entries' own problems as a list.
func calendarFormErrors(ve *problem.List) (web.FieldErrors, []string) {
	errs := web.FieldErrors{}
	var entries []string
	for _, p := range ve.Problems {
		switch {
		case p.Path == "name" || p.Path == "timeZone" || p.Path == "description" || p.Path == "entries":
			if errs[p.Path] == "" {
				errs[p.Path] = p.Message
			}
		case strings.HasPrefix(p.Path, "entries["):
			entries = append(entries, p.String())
		default:
			if errs["entries"] == "" {
				errs["entries"] = p.String()
			}
		}
	}
	return errs, entries
}

// calendarDeleteView is the deletion's confirmation; reason (a refusal)
// names the jobs that use the calendar.
func (s *Server) calendarDeleteView(c echo.Context, ws string, row *models.Calendar, reason error) (web.CalendarDeleteView, error) {
	jobs, err := s.store.JobsUsingCalendar(c.Request().Context(), ws, row.Name)
	if err != nil {
		return web.CalendarDeleteView{Workspace: ws, Name: row.Name}, err
	}
	return web.NewCalendarDeleteView(ws, row, jobs, csrfToken(c), reason), nil
}

// otherWorkspaces links path of each workspace of the user but ws.
func (s *Server) otherWorkspaces(c echo.Context, ws string, path func(string) string) ([]web.JobLink, error) {
	all, err := s.store.WorkspacesOf(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return nil, err
	}
	return web.WorkspaceLinks(all, ws, path), nil
}
