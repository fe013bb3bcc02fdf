package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/web"
)

// calendarImportPage is the upload form (?name= fills the calendar).
func (s *Server) calendarImportPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	v := s.calendarImportView(c, ws)
	v.Name = c.QueryParam("name")
	return render(c, http.StatusOK, web.CalendarImportPage(page(c, "Import a calendar"), v))
}

// calendarImportSubmit checks an uploaded .ics file (a dry run: the
// report and the button that imports) or, confirmed, imports the file the
// dry run carried. Problems re-render the form (422).
func (s *Server) calendarImportSubmit(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	v := s.calendarImportView(c, ws)
	v.Name, v.TimeZone = c.FormValue("name"), c.FormValue("timeZone")
	confirmed := c.FormValue("confirm") == "yes"
	var data []byte
	if confirmed {
		data = []byte(c.FormValue("ics"))
	} else if data, err = uploadedICS(c); err != nil {
		if ve := problem.As(err); ve != nil {
			v.Errors = web.FieldErrors{"file": ve.Problems[0].Message}
			return render(c, statusUnprocessable, web.CalendarImportPage(page(c, "Import a calendar"), v))
		}
		return err
	}
	rep, err := s.calendars.ImportCalendar(c.Request().Context(), actorOf(c), catalog.CalendarImport{WorkspaceID: ws, Name: v.Name, ICS: data,
		DryRun: !confirmed, TimeZone: v.TimeZone})
	if ve := problem.As(err); ve != nil {
		v.Errors, _ = calendarFormErrors(ve)
		if msg := ve.Problems[0]; v.Errors["file"] == "" && msg.Path != "name" && msg.Path != "timeZone" {
			v.Errors["file"] = msg.String()
		}
		return render(c, statusUnprocessable, web.CalendarImportPage(page(c, "Import a calendar"), v))
	}
	if err != nil {
		return err
	}
	v.ICS = string(data)
	v.Report = icsReportView(rep, web.CalendarPath(ws, v.Name))
	if confirmed {
		s.log.Info("calendar imported", "workspace", ws, "calendar", v.Name, "added", len(rep.Added), "user", currentUser(c).Username)
	}
	return render(c, http.StatusOK, web.CalendarImportPage(page(c, "Import a calendar"), v))
}

// uploadedICS reads the form's file, at most catalog.MaxCalendarImportBytes.
func uploadedICS(c echo.Context) ([]byte, error) {
	fh, err := c.FormFile("file")
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "file", Message: "Choose an .ics file."}}}
	}
	if err != nil {
		return nil, fmt.Errorf("import calendar: %w", err)
	}
	if fh.Size > catalog.MaxCalendarImportBytes {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "file", Message: "The file is over the maximum of 1 MB."}}}
	}
	f, err := fh.Open()
	if err != nil {
		return nil, fmt.Errorf("import calendar: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, catalog.MaxCalendarImportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("import calendar: %w", err)
	}
	return data, nil
}

// calendarImportView is the import page's frame.
func (s *Server) calendarImportView(c echo.Context, ws string) web.CalendarImportView {
	return web.CalendarImportView{Workspace: ws, Action: web.CalendarImportPath(ws, ""),
		CancelURL: web.CalendarsPath(ws), CSRFToken: csrfToken(c)}
}

// icsReportView shows an import's report.
func icsReportView(rep *catalog.CalendarImportReport, calendarURL string) *web.CalendarImportReport {
	v := &web.CalendarImportReport{DryRun: rep.DryRun, Created: rep.Created, TimeZone: rep.TimeZone, Entries: rep.Entries,
		CalendarURL: calendarURL}
	for _, a := range rep.Added {
		v.Added = append(v.Added, web.ICSRow{Event: a.Event, Entry: string(a.Entry)})
	}
	for _, a := range rep.Existing {
		v.Existing = append(v.Existing, web.ICSRow{Event: a.Event, Entry: string(a.Entry), Note: a.Note})
	}
	for _, n := range rep.NotImported {
		v.NotImported = append(v.NotImported, web.ICSRow{Event: n.Event, Note: n.Reason})
	}
	return v
}
