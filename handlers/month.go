package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/forecast"
	"sked/web"
)

// parseMonthParams reads the month view's query at now.
func parseMonthParams(c echo.Context, now time.Time) (web.MonthParams, error) {
	p := web.MonthParams{Loc: time.UTC, Zone: "UTC"}
	if tz := strings.TrimSpace(c.QueryParam("tz")); tz != "" {
		loc, err := jobdef.LoadZone(tz)
		if err != nil {
			return p, badRequest("tz", fmt.Sprintf("%q is not a known IANA or Windows time zone", tz))
		}
		p.Loc, p.Zone = loc, tz
	}
	local := now.In(p.Loc)
	p.Year, p.Month = local.Year(), local.Month()
	if m := c.QueryParam("m"); m != "" {
		t, err := time.Parse("2006-01", m)
		if err != nil || t.Year() < caldef.FirstYear || t.Year() > caldef.LastYear {
			return p, badRequest("m", fmt.Sprintf("%q is not a month (YYYY-MM)", m))
		}
		p.Year, p.Month = t.Year(), t.Month()
	}
	if d := c.QueryParam("d"); d != "" {
		day, err := caldef.ParseDate(d)
		if err != nil {
			return p, badRequest("d", err.Error())
		}
		p.Day = &day
		if c.QueryParam("m") == "" {
			p.Year, p.Month = day.Year, day.Month
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
	m, err := s.forecaster().Month(c.Request().Context(), ws, p.Year, p.Month, p.Loc, now)
	if err != nil {
		return err
	}
	v := web.NewMonthPageView(ws, p, m, now)
	if v.Others, err = s.otherWorkspaces(c, ws, web.MonthPath); err != nil {
		return err
	}
	if p.Day != nil {
		d, more, err := s.forecaster().DayRuns(c.Request().Context(), ws, *p.Day, p.Loc, now)
		if err != nil {
			return err
		}
		dv := web.NewDayRunsView(ws, p, d, more, now)
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
	if p.Day == nil {
		return badRequest("d", "is required: the day (YYYY-MM-DD)")
	}
	d, more, err := s.forecaster().DayRuns(c.Request().Context(), ws, *p.Day, p.Loc, now)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DayRunsFragment(web.NewDayRunsView(ws, p, d, more, now)))
}
