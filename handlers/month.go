package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/forecast"
	"sked/web"
)

// monthParams are the month view's query: the month (m=2026-12, default
// the current one), the zone of its days (tz, default UTC) and a chosen
// day (d=2026-12-24).
type monthParams struct {
	loc   *time.Location
	zone  string
	year  int
	month time.Month
	day   *caldef.Date
}

// parseMonthParams reads the month view's query at now.
func parseMonthParams(c echo.Context, now time.Time) (monthParams, error) {
	p := monthParams{loc: time.UTC, zone: "UTC"}
	if tz := strings.TrimSpace(c.QueryParam("tz")); tz != "" {
		loc, err := jobdef.LoadZone(tz)
		if err != nil {
			return p, badRequest("tz", fmt.Sprintf("%q is not a known IANA or Windows time zone", tz))
		}
		p.loc, p.zone = loc, tz
	}
	local := now.In(p.loc)
	p.year, p.month = local.Year(), local.Month()
	if m := c.QueryParam("m"); m != "" {
		t, err := time.Parse("2006-01", m)
		if err != nil || t.Year() < caldef.FirstYear || t.Year() > caldef.LastYear {
			return p, badRequest("m", fmt.Sprintf("%q is not a month (YYYY-MM)", m))
		}
		p.year, p.month = t.Year(), t.Month()
	}
	if d := c.QueryParam("d"); d != "" {
		day, err := caldef.ParseDate(d)
		if err != nil {
			return p, badRequest("d", err.Error())
		}
		p.day = &day
		if c.QueryParam("m") == "" {
			p.year, p.month = day.Year, day.Month
		}
	}
	return p, nil
}

// forecaster reads the runs to come of a workspace's jobs.
func (s *Server) forecaster() *forecast.Forecaster {
	return forecast.New(s.store, s.catalog.WorkspaceCalendars)
}

// monthPage is the month view of a workspace (?m=, ?tz=, ?d=).
func (s *Server) monthPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	now := s.clock()
	p, err := parseMonthParams(c, now)
	if err != nil {
		return err
	}
	m, err := s.forecaster().Month(c.Request().Context(), ws, p.year, p.month, p.loc, now)
	if err != nil {
		return err
	}
	v := monthView(ws, p, m, now)
	if v.Others, err = s.otherWorkspaces(c, ws, web.MonthPath); err != nil {
		return err
	}
	if p.day != nil {
		d, more, err := s.forecaster().DayRuns(c.Request().Context(), ws, *p.day, p.loc, now)
		if err != nil {
			return err
		}
		dv := dayRunsView(ws, p, d, more, now)
		v.Detail = &dv
	}
	return render(c, http.StatusOK, web.MonthPage(page(c, "Month view"), v))
}

// monthDay is one day's runs: the #month-day fragment for htmx, the month
// view with the day chosen otherwise.
func (s *Server) monthDay(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return redirect(c, localRedirectTarget(web.MonthPath(ws)+"?"+c.QueryParams().Encode()))
	}
	now := s.clock()
	p, err := parseMonthParams(c, now)
	if err != nil {
		return err
	}
	if p.day == nil {
		return badRequest("d", "is required: the day (YYYY-MM-DD)")
	}
	d, more, err := s.forecaster().DayRuns(c.Request().Context(), ws, *p.day, p.loc, now)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DayRunsFragment(dayRunsView(ws, p, d, more, now)))
}

// monthQuery is the month view's query for month m, day d ("" for none)
// in the zone of p.
func monthQuery(p monthParams, m, d string) string {
	q := url.Values{"m": {m}}
	if d != "" {
		q.Set("d", d)
	}
	if p.zone != "UTC" {
		q.Set("tz", p.zone)
	}
	return q.Encode()
}

// monthView builds the month grid.
func monthView(ws string, p monthParams, m *forecast.Month, now time.Time) web.MonthPageView {
	first := time.Date(p.year, p.month, 1, 0, 0, 0, 0, time.UTC)
	ym := first.Format("2006-01")
	v := web.MonthPageView{Workspace: ws, Title: first.Format("January 2006"), Month: ym, Zone: p.zone,
		Action: web.MonthPath(ws), ListURL: web.CalendarsPath(ws), Jobs: m.Jobs, JobsText: plural(m.Jobs, "enabled job") + " counted",
		PrevURL: web.MonthPath(ws) + "?" + monthQuery(p, first.AddDate(0, -1, 0).Format("2006-01"), ""),
		NextURL: web.MonthPath(ws) + "?" + monthQuery(p, first.AddDate(0, 1, 0).Format("2006-01"), "")}
	today := caldef.DateOf(now.In(p.loc))
	busiest := 0
	for _, d := range m.Days {
		busiest = max(busiest, d.Runs)
	}
	for _, week := range weeksOf(p.year, p.month) {
		row := make([]web.MonthDayCell, 7)
		for i, day := range week {
			if day == 0 {
				continue
			}
			d := m.Days[day-1]
			count := runsText(d.Runs, d.Capped)
			row[i] = web.MonthDayCell{Day: day, Date: d.Date.String(), Count: count, Runs: d.Runs, Past: d.Date.Before(today),
				Excluded: strings.Join(d.Excluded, "; "), Level: heatLevel(d.Runs, busiest),
				URL: web.MonthPath(ws) + "/day?" + monthQuery(p, ym, d.Date.String())}
		}
		v.Weeks = append(v.Weeks, row)
	}
	v.Notes = monthNotes(m, today)
	return v
}

// monthNotes say what the counts leave out.
func monthNotes(m *forecast.Month, today caldef.Date) []string {
	var notes []string
	first := caldef.Date{Year: m.Year, Month: m.Month, Day: 1}
	if !today.Before(first) {
		notes = append(notes, "Runs are forecast from now on: earlier days count none.")
	}
	if m.MoreJobs {
		notes = append(notes, fmt.Sprintf("Only the first %s enabled jobs are counted: the workspace has more.", formatCount(forecast.MaxJobs)))
	}
	for _, j := range m.Capped {
		notes = append(notes, fmt.Sprintf("%s runs more than %s times this month: its runs are counted up to there (days marked +).", j, formatCount(forecast.PerJobCap)))
	}
	for _, p := range m.Problems {
		notes = append(notes, "Not counted: "+p)
	}
	return notes
}

// dayRunsView builds a day's runs.
func dayRunsView(ws string, p monthParams, d *forecast.Day, more bool, now time.Time) web.DayRunsView {
	v := web.DayRunsView{Date: d.Date.Time().Format("Monday 2 January 2006"), Zone: p.zone, Total: runsText(d.Runs, d.Capped),
		Excluded: strings.Join(d.Excluded, "; "), More: d.More}
	if d.Capped {
		v.Notes = append(v.Notes, fmt.Sprintf("A job runs more than %s times this day: its runs are counted up to there.", formatCount(forecast.PerJobCap)))
	}
	if more {
		v.Notes = append(v.Notes, fmt.Sprintf("Only the first %s enabled jobs are counted.", formatCount(forecast.MaxJobs)))
	}
	if d.Date.Before(caldef.DateOf(now.In(p.loc))) {
		v.Notes = append(v.Notes, "This day is past: runs are forecast from now on.")
	}
	busiest := 0
	for _, n := range d.Hours {
		busiest = max(busiest, n)
	}
	for h, n := range d.Hours {
		v.Hours = append(v.Hours, web.HourCell{Hour: fmt.Sprintf("%02d", h), Count: n, Level: heatLevel(n, busiest)})
	}
	for _, r := range d.List {
		v.Runs = append(v.Runs, web.RunRow{Time: r.At.In(p.loc).Format("15:04:05"), UTC: r.At.UTC().Format("15:04 UTC"),
			Job: r.Job.Path(), URL: web.JobPath(ws, r.Job.ResourceGroup, r.Job.Collection, r.Job.Name)})
	}
	return v
}

// heatLevel is 0 for no run, else 1 to 4 by n's share of the busiest.
func heatLevel(n, busiest int) int {
	if n <= 0 || busiest <= 0 {
		return 0
	}
	return min(1+(n*3)/busiest, 4)
}

// runsText is "1 run", "12 runs" or, capped, "10,000+ runs".
func runsText(n int, capped bool) string {
	if capped {
		return formatCount(n) + "+ runs"
	}
	return plural(n, "run")
}

// plural is "1 run" or "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return formatCount(n) + " " + noun + "s"
}

// formatCount writes n with thousands separators: 10,000.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
