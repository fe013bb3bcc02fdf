package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
	"sked/web"
)

// The view builders of the calendar pages.

// nextExcludedShown is how many coming excluded days the list shows.
const nextExcludedShown = 3

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

// zoneName is how pages show a calendar's zone.
func zoneName(cal *caldef.Calendar) string {
	if cal.TimeZone == "" {
		return "UTC"
	}
	return cal.TimeZone
}

// calendarsView builds the calendars list of ws.
func (s *Server) calendarsView(c echo.Context, ws string) (web.CalendarsPageView, error) {
	ctx := c.Request().Context()
	v := web.CalendarsPageView{Workspace: ws, NewURL: web.CalendarsPath(ws) + "/new", ImportURL: web.CalendarsPath(ws) + "/import",
		MonthURL: web.MonthPath(ws)}
	flash, err := takeFlash(c)
	if err != nil {
		return v, err
	}
	v.Flash = flash
	if v.Others, err = s.otherWorkspaces(c, ws, web.CalendarsPath); err != nil {
		return v, err
	}
	rows, err := s.store.CalendarsOf(ctx, ws)
	if err != nil {
		return v, err
	}
	now := s.clock()
	for i := range rows {
		row := &rows[i]
		cal, rc, err := compiledCalendar(row)
		if err != nil {
			return v, err
		}
		r := web.CalendarRow{Name: row.Name, URL: web.CalendarPath(ws, row.Name), Zone: zoneName(cal), Entries: len(cal.Entries)}
		today := caldef.DateOf(now.In(cal.Location))
		for _, d := range rc.ExcludedDays(today, addDate(today, 0, 0, 400)) {
			if len(r.Next) == nextExcludedShown {
				break
			}
			r.Next = append(r.Next, dayText(d))
		}
		if r.Jobs, err = s.calendarJobs(ctx, ws, row.Name); err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, r)
	}
	return v, nil
}

// dayText is "Thu 24 Dec 2026 · Christmas Eve".
func dayText(d recurrence.ExcludedDay) string {
	s := d.Date.Time().Format("Mon 2 Jan 2006")
	if d.Label != "" {
		s += " · " + d.Label
	}
	return s
}

// addDate is d moved by years, months and days.
func addDate(d caldef.Date, years, months, days int) caldef.Date {
	return caldef.DateOf(d.Time().AddDate(years, months, days))
}

// calendarJobs links the jobs of ws that exclude the calendar name.
func (s *Server) calendarJobs(ctx context.Context, ws, name string) ([]web.JobLink, error) {
	refs, err := s.store.JobsUsingCalendar(ctx, ws, name)
	if err != nil {
		return nil, err
	}
	out := make([]web.JobLink, len(refs))
	for i, r := range refs {
		out[i] = web.JobLink{Name: r.String(), URL: web.JobPath(ws, r.ResourceGroup, r.Collection, r.Name)}
	}
	return out, nil
}

// calendarView builds a calendar's page for year.
func (s *Server) calendarView(c echo.Context, ws string, row *models.Calendar, year int) (web.CalendarPageView, error) {
	base := web.CalendarPath(ws, row.Name)
	v := web.CalendarPageView{Workspace: ws, Name: row.Name, Version: row.Version, Year: year,
		ListURL: web.CalendarsPath(ws), EditURL: base + "/edit", ImportURL: web.CalendarsPath(ws) + "/import?name=" + url.QueryEscape(row.Name),
		ExportURL: base + "/export.ics", DeleteURL: base + "/delete",
		PrevURL: fmt.Sprintf("%s?year=%d", base, year-1), NextURL: fmt.Sprintf("%s?year=%d", base, year+1)}
	flash, err := takeFlash(c)
	if err != nil {
		return v, err
	}
	v.Flash = flash
	cal, rc, err := compiledCalendar(row)
	if err != nil {
		return v, err
	}
	v.Zone, v.Description, v.Entries = zoneName(cal), cal.Description, len(cal.Entries)
	days := rc.ExcludedDays(caldef.Date{Year: year, Month: time.January, Day: 1}, caldef.Date{Year: year, Month: time.December, Day: 31})
	labels := map[caldef.Date]string{}
	for _, d := range days {
		labels[d.Date] = d.Label
		label := d.Label
		if label == "" {
			label = "excluded"
		}
		v.Days = append(v.Days, web.ExcludedDayView{Date: d.Date.Time().Format("Mon 2 Jan 2006"), Label: label})
	}
	for m := time.January; m <= time.December; m++ {
		v.Months = append(v.Months, monthGrid(year, m, labels))
	}
	v.Jobs, err = s.calendarJobs(c.Request().Context(), ws, row.Name)
	return v, err
}

// monthGrid lays out a month from Monday, marking the days in labels.
func monthGrid(year int, month time.Month, labels map[caldef.Date]string) web.MonthGrid {
	g := web.MonthGrid{Title: month.String()}
	for _, week := range weeksOf(year, month) {
		row := make([]web.DayCell, 7)
		for i, day := range week {
			if day == 0 {
				continue
			}
			d := caldef.Date{Year: year, Month: month, Day: day}
			label, excluded := labels[d]
			if excluded && label == "" {
				label = "excluded"
			}
			row[i] = web.DayCell{Day: day, Date: d.String(), Excluded: excluded, Label: label}
		}
		g.Weeks = append(g.Weeks, row)
	}
	return g
}

// weeksOf lists the weeks of a month from Monday: day numbers, 0 where a
// week reaches into another month.
func weeksOf(year int, month time.Month) [][7]int {
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	n := first.AddDate(0, 1, -1).Day()
	col := (int(first.Weekday()) + 6) % 7
	var out [][7]int
	var w [7]int
	for day := 1; day <= n; day++ {
		w[col] = day
		col++
		if col == 7 || day == n {
			out = append(out, w)
			w, col = [7]int{}, 0
		}
	}
	return out
}

// calendarForm is the form of the calendar row (nil: a new one).
func (s *Server) calendarForm(c echo.Context, ws string, row *models.Calendar) web.CalendarForm {
	f := web.CalendarForm{Workspace: ws, IsNew: row == nil, Action: web.CalendarsPath(ws) + "/new", CancelURL: web.CalendarsPath(ws),
		CSRFToken: csrfToken(c), Entries: "[\n]"}
	if row == nil {
		return f
	}
	f.Name, f.Action, f.CancelURL, f.Version = row.Name, web.CalendarPath(ws, row.Name)+"/edit", web.CalendarPath(ws, row.Name), row.Version
	if cal, err := caldef.Parse(row.Definition); err == nil {
		f.TimeZone, f.Description = cal.TimeZone, cal.Description
		f.Entries = entriesText(cal)
	}
	return f
}

// entriesText is the entries of cal as an indented JSON array, one entry
// a line.
func entriesText(cal *caldef.Calendar) string {
	if len(cal.Entries) == 0 {
		return "[\n]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range cal.Entries {
		b.WriteString("  ")
		b.Write(e.Marshal())
		if i < len(cal.Entries)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]")
	return b.String()
}

// calendarFormBody is the calendar JSON of the form's fields; entries that
// are not a JSON array are a problem on "entries".
func calendarFormBody(f web.CalendarForm) ([]byte, error) {
	entries := bytes.TrimSpace([]byte(f.Entries))
	if len(entries) == 0 {
		entries = []byte("[]")
	}
	if !json.Valid(entries) || entries[0] != '[' {
		return nil, &jobdef.ValidationError{Problems: []jobdef.Problem{{Path: "entries",
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
func calendarFormErrors(ve *jobdef.ValidationError) (web.FieldErrors, []string) {
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
	v := web.CalendarDeleteView{Workspace: ws, Name: row.Name, Action: web.CalendarPath(ws, row.Name) + "/delete",
		CancelURL: web.CalendarPath(ws, row.Name), CSRFToken: csrfToken(c)}
	jobs, err := s.calendarJobs(c.Request().Context(), ws, row.Name)
	if err != nil {
		return v, err
	}
	v.Jobs = jobs
	if reason != nil {
		v.Error = reason.Error()
	}
	if len(jobs) > 0 && v.Error == "" {
		v.Error = fmt.Sprintf("The calendar %s cannot be deleted: %d jobs exclude it. Remove it from their recurrence.calendars.exclude first.", row.Name, len(jobs))
	}
	return v, nil
}

// otherWorkspaces links path of each workspace of the user but ws.
func (s *Server) otherWorkspaces(c echo.Context, ws string, path func(string) string) ([]web.JobLink, error) {
	all, err := s.store.WorkspacesOf(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return nil, err
	}
	var out []web.JobLink
	for _, w := range all {
		if w.ID != ws {
			out = append(out, web.JobLink{Name: w.ID, URL: path(w.ID)})
		}
	}
	return out, nil
}
