package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/web"
)

// calendarImportPagePath is the import page's route: its confirmation
// carries the file (up to 1 MB) in a form field, over the global body
// limit, so skipBodyLimit lets it through and the handler bounds it.
const calendarImportPagePath = "/w/:ws/calendars/import"

// pageCalendar is the workspace and the calendar of the path.
func (s *Server) pageCalendar(c echo.Context) (string, *models.Calendar, error) {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return "", nil, err
	}
	row, err := s.store.CalendarByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return "", nil, calendarNotFound(err, c.Param("name"))
	}
	return ws, row, nil
}

// calendarsPage lists the calendars of a workspace.
func (s *Server) calendarsPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	v, err := s.calendarsView(c, ws)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.CalendarsPage(page(c, "Calendars"), v))
}

// calendarPage shows a calendar's year (?year=, default the current one).
func (s *Server) calendarPage(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	year := s.clock().Year()
	if y := c.QueryParam("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 1900 || n > 2199 {
			return badRequest("year", fmt.Sprintf("%q is not a year from 1900 to 2199", y))
		}
		year = n
	}
	v, err := s.calendarView(c, ws, row, year)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.CalendarPage(page(c, row.Name), v))
}

// calendarNewPage is the form of a new calendar.
func (s *Server) calendarNewPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	f := s.calendarForm(c, ws, nil)
	return render(c, http.StatusOK, web.CalendarFormPage(page(c, "New calendar"), f))
}

// calendarEditPage is the form of a calendar.
func (s *Server) calendarEditPage(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	f := s.calendarForm(c, ws, row)
	return render(c, http.StatusOK, web.CalendarFormPage(page(c, "Edit "+row.Name), f))
}

// calendarCreate saves a new calendar from the form.
func (s *Server) calendarCreate(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	f := s.calendarForm(c, ws, nil)
	f.Name, f.TimeZone, f.Description, f.Entries = c.FormValue("name"), c.FormValue("timeZone"), c.FormValue("description"), c.FormValue("entries")
	if _, err := s.store.CalendarByName(c.Request().Context(), ws, f.Name); err == nil {
		f.Errors = web.FieldErrors{"name": fmt.Sprintf("A calendar %s already exists: edit it instead.", f.Name)}
		return s.renderCalendarForm(c, f)
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	return s.saveCalendarForm(c, ws, f)
}

// calendarSave saves a calendar from the form.
func (s *Server) calendarSave(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	f := s.calendarForm(c, ws, row)
	f.TimeZone, f.Description, f.Entries = c.FormValue("timeZone"), c.FormValue("description"), c.FormValue("entries")
	if v, err := strconv.ParseInt(c.FormValue("version"), 10, 64); err == nil && v > 0 {
		f.Version = v // as the form was opened; without it, the stored one
	}
	return s.saveCalendarForm(c, ws, f)
}

// saveCalendarForm stores the form's calendar (at the version the form
// was opened with) and goes to its page; a refused calendar re-renders the
// form with the problems, or with the conflict when someone else saved it
// in the meantime (422).
func (s *Server) saveCalendarForm(c echo.Context, ws string, f web.CalendarForm) error {
	body, err := calendarFormBody(f)
	if err == nil {
		_, _, err = s.calendars.PutCalendarVersion(c.Request().Context(), actorOf(c), ws, f.Name, body, f.Version)
	}
	var ce *models.ConflictError
	if errors.As(err, &ce) {
		f.Conflict = ce.Message
		return s.renderCalendarForm(c, f)
	}
	if ve := problem.As(err); ve != nil {
		f.Errors, f.EntryProblems = calendarFormErrors(ve)
		return s.renderCalendarForm(c, f)
	}
	if err != nil {
		return err
	}
	if err := addFlash(c, fmt.Sprintf("The calendar %s was saved.", f.Name)); err != nil {
		return err
	}
	return redirect(c, web.CalendarPath(ws, f.Name))
}

// renderCalendarForm answers a refused form: the fragment for htmx, the
// page otherwise, both 422.
func (s *Server) renderCalendarForm(c echo.Context, f web.CalendarForm) error {
	if isHTMX(c) {
		return render(c, statusUnprocessable, web.CalendarFormFragment(f))
	}
	return render(c, statusUnprocessable, web.CalendarFormPage(page(c, "Calendar"), f))
}

// calendarExport downloads the calendar as an .ics file.
func (s *Server) calendarExport(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	return s.writeCalendarICS(c, ws, row)
}

// calendarDeleteConfirm asks whether to delete the calendar, or says which
// jobs still use it.
func (s *Server) calendarDeleteConfirm(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	v, err := s.calendarDeleteView(c, ws, row, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.CalendarDeletePage(page(c, "Delete "+row.Name), v))
}

// calendarDelete deletes the calendar once confirmed and goes to the
// list; a calendar in use is refused (409) with the jobs named.
func (s *Server) calendarDelete(c echo.Context) error {
	ws, row, err := s.pageCalendar(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		v, err := s.calendarDeleteView(c, ws, row, errors.New("Confirm with the button below to delete the calendar."))
		if err != nil {
			return err
		}
		return render(c, statusUnprocessable, web.CalendarDeletePage(page(c, "Delete "+row.Name), v))
	}
	err = s.calendars.DeleteCalendar(c.Request().Context(), actorOf(c), ws, row.Name)
	var ce *models.ConflictError
	if errors.As(err, &ce) {
		v, verr := s.calendarDeleteView(c, ws, row, ce)
		if verr != nil {
			return verr
		}
		return render(c, http.StatusConflict, web.CalendarDeletePage(page(c, "Delete "+row.Name), v))
	}
	if err != nil {
		return err
	}
	if err := addFlash(c, fmt.Sprintf("The calendar %s was deleted.", row.Name)); err != nil {
		return err
	}
	return redirect(c, web.CalendarsPath(ws))
}
