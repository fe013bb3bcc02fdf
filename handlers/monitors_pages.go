package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/monitordef"
	"sked/models/problem"
	"sked/scheduler/plan"
	"sked/web"
)

// monitorPingsShown is how many pings a monitor's page lists.
const monitorPingsShown = 20

// pageMonitor is the workspace and the monitor of the path.
func (s *Server) pageMonitor(c echo.Context) (string, *models.Monitor, error) {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return "", nil, err
	}
	row, err := s.store.MonitorByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return "", nil, monitorNotFound(err, c.Param("name"))
	}
	return ws, row, nil
}

// monitorsPage lists the monitors of a workspace.
func (s *Server) monitorsPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	rows, err := s.store.MonitorsOf(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	flash, err := takeFlash(c)
	if err != nil {
		return err
	}
	editor := s.mayEditMonitors(c, ws)
	loc, now := s.userZone(c), s.clock()
	v := web.MonitorsPageView{Workspace: ws, Flash: flash, CanEdit: editor, NewURL: web.NewMonitorPath(ws)}
	for i := range rows {
		st, err := s.monitorStateOf(c, &rows[i], editor)
		if err != nil {
			return err
		}
		r := web.MonitorRow{Name: rows[i].Name, URL: web.MonitorPath(ws, rows[i].Name), Description: st.def.Description,
			Status: web.MonitorStatusBadge(st.status), LastPing: web.InstantPtr(rows[i].LastPingAt, loc, now), PingURL: st.pingURL}
		if len(st.next) > 0 {
			r.NextExpected = web.InstantIn(st.next[0], loc, now)
		}
		v.Rows = append(v.Rows, r)
	}
	return render(c, http.StatusOK, web.MonitorsPage(page(c, "Monitors"), v))
}

// monitorPage shows a monitor: state, ping URL (editors), next expected
// times, the last 24 hours and the last pings; htmx gets #monitor-live
// (with the header's badge out of band), which the page asks for every
// 10 seconds.
func (s *Server) monitorPage(c echo.Context) error {
	ws, row, err := s.pageMonitor(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	editor := s.mayEditMonitors(c, ws)
	st, err := s.monitorStateOf(c, row, editor)
	if err != nil {
		return err
	}
	flash, err := takeFlash(c)
	if err != nil {
		return err
	}
	loc, now := s.userZone(c), s.clock()
	pings, err := s.store.MonitorPings(ctx, row.ID, now.Add(-60*24*time.Hour), 500)
	if err != nil {
		return err
	}
	occ, err := s.store.MonitorOccurrences(ctx, row.ID, now.Add(-25*time.Hour), 2000)
	if err != nil {
		return err
	}
	v := web.MonitorPageView{Workspace: ws, Name: row.Name, Description: st.def.Description, Flash: flash,
		Status: web.MonitorStatusBadge(st.status), StatusText: web.MonitorStatusText(st.status),
		Grace: jobdef.FormatISODuration(st.def.Grace), CanEdit: editor, PingURL: st.pingURL,
		RotateURL: web.MonitorPath(ws, row.Name) + "/rotate", EditURL: web.MonitorPath(ws, row.Name) + "/edit",
		DeleteURL: web.MonitorPath(ws, row.Name) + "/delete", ListURL: web.MonitorsPath(ws), CSRFToken: csrfToken(c),
		LiveURL: web.MonitorPath(ws, row.Name)}
	if st.def.MaxDuration > 0 {
		v.MaxDuration = jobdef.FormatISODuration(st.def.MaxDuration)
	}
	if cals, err := s.catalog.WorkspaceCalendars(ctx, ws); err == nil {
		if rule, err := plan.MonitorRule(st.def, row.Anchor, cals); err == nil {
			v.Schedule = rule.Description()
		}
	}
	for _, t := range st.next {
		v.Next = append(v.Next, web.InstantIn(t, loc, now))
	}
	marks := make([]web.MonitorPingMark, 0, len(pings))
	for i, p := range pings {
		marks = append(marks, web.MonitorPingMark{At: p.At, Kind: p.Kind})
		if i < monitorPingsShown {
			v.Pings = append(v.Pings, web.MonitorPingRow{At: web.InstantIn(p.At, loc, now), Kind: web.PingBadge(p.Kind), Message: p.Message})
		}
	}
	met := map[time.Time]bool{}
	for _, o := range occ {
		met[o.ExpectedAt] = o.MetAt != nil
	}
	v.Timeline = web.NewMonitorTimeline(now, loc, met, marks)
	sort.Slice(v.Timeline.Marks, func(i, j int) bool { return v.Timeline.Marks[i].X < v.Timeline.Marks[j].X })
	if isHTMX(c) {
		// The page's refresh: only what pings and decisions change.
		return render(c, http.StatusOK, web.MonitorLiveFragment(v, true))
	}
	return render(c, http.StatusOK, web.MonitorPage(page(c, row.Name), v))
}

// monitorForm is the form of monitor row of ws (nil: a new one).
func (s *Server) monitorForm(c echo.Context, ws string, row *models.Monitor) web.MonitorForm {
	f := web.MonitorFormOf(nil)
	f.IsNew, f.Action, f.CancelURL = true, web.NewMonitorPath(ws), web.MonitorsPath(ws)
	if row != nil {
		def, _ := monitordef.Parse(row.Definition)
		f = web.MonitorFormOf(def)
		f.Name, f.Action, f.CancelURL = row.Name, web.MonitorPath(ws, row.Name)+"/edit", web.MonitorPath(ws, row.Name)
	}
	f.Workspace, f.CSRFToken = ws, csrfToken(c)
	return f
}

// readMonitorForm fills f's fields from the posted form.
func readMonitorForm(c echo.Context, f *web.MonitorForm) {
	f.Frequency, f.Interval, f.Hours, f.Minutes = c.FormValue("frequency"), c.FormValue("interval"), c.FormValue("hours"), c.FormValue("minutes")
	f.WeekDays, f.TimeZone, f.Calendars = c.FormValue("weekDays"), c.FormValue("timeZone"), c.FormValue("calendars")
	f.Grace, f.MaxDuration, f.Description = c.FormValue("grace"), c.FormValue("maxDuration"), c.FormValue("description")
	f.Paused = c.FormValue("paused") == "true"
}

// monitorNewPage is the form of a new monitor.
func (s *Server) monitorNewPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.MonitorFormPage(page(c, "New monitor"), s.monitorForm(c, ws, nil)))
}

// monitorEditPage is the form of a monitor.
func (s *Server) monitorEditPage(c echo.Context) error {
	ws, row, err := s.pageMonitor(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.MonitorFormPage(page(c, "Edit "+row.Name), s.monitorForm(c, ws, row)))
}

// monitorCreate saves a new monitor from the form; a taken name is the
// name field's error.
func (s *Server) monitorCreate(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	f := s.monitorForm(c, ws, nil)
	f.Name = c.FormValue("name")
	readMonitorForm(c, &f)
	if _, err := s.store.MonitorByName(c.Request().Context(), ws, f.Name); err == nil {
		f.Errors = web.FieldErrors{"name": fmt.Sprintf("A monitor %s already exists: edit it instead.", f.Name)}
		return s.renderMonitorForm(c, f)
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	return s.saveMonitorForm(c, ws, f)
}

// monitorSave saves a monitor from its edit form.
func (s *Server) monitorSave(c echo.Context) error {
	ws, row, err := s.pageMonitor(c)
	if err != nil {
		return err
	}
	f := s.monitorForm(c, ws, row)
	readMonitorForm(c, &f)
	return s.saveMonitorForm(c, ws, f)
}

// saveMonitorForm stores the form's monitor and goes to its page; a
// refused one re-renders the form with the problems (422).
func (s *Server) saveMonitorForm(c echo.Context, ws string, f web.MonitorForm) error {
	body, errs := f.JSON()
	if errs != nil {
		f.Errors = errs
		return s.renderMonitorForm(c, f)
	}
	row, _, err := s.monitors.PutMonitor(c.Request().Context(), actorOf(c), ws, f.Name, body)
	if ve := problem.As(err); ve != nil {
		f.SetProblems(ve)
		return s.renderMonitorForm(c, f)
	}
	if err != nil {
		return err
	}
	if err := addFlash(c, fmt.Sprintf("The monitor %s was saved.", row.Name)); err != nil {
		return err
	}
	return redirect(c, web.MonitorPath(ws, row.Name))
}

// renderMonitorForm answers a refused form: the fragment for htmx, the
// page otherwise, both 422.
func (s *Server) renderMonitorForm(c echo.Context, f web.MonitorForm) error {
	if isHTMX(c) {
		return render(c, statusUnprocessable, web.MonitorFormFragment(f))
	}
	return render(c, statusUnprocessable, web.MonitorFormPage(page(c, "Monitor"), f))
}

// monitorRotate gives the monitor a new ping URL and shows its page.
func (s *Server) monitorRotate(c echo.Context) error {
	ws, row, err := s.pageMonitor(c)
	if err != nil {
		return err
	}
	if _, err := s.monitors.RotateMonitorToken(c.Request().Context(), actorOf(c), ws, row.Name); err != nil {
		return err
	}
	if err := addFlash(c, "The monitor has a new ping URL; the old one no longer works."); err != nil {
		return err
	}
	return redirect(c, web.MonitorPath(ws, row.Name))
}

// monitorDelete deletes the monitor and goes to the list.
func (s *Server) monitorDelete(c echo.Context) error {
	ws, row, err := s.pageMonitor(c)
	if err != nil {
		return err
	}
	if err := s.monitors.DeleteMonitor(c.Request().Context(), actorOf(c), ws, row.Name); err != nil {
		return monitorNotFound(err, row.Name)
	}
	if err := addFlash(c, fmt.Sprintf("The monitor %s was deleted.", row.Name)); err != nil {
		return err
	}
	return redirect(c, web.MonitorsPath(ws))
}
