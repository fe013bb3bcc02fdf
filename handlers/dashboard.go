package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/recurrence"
	"sked/web"
)

// dashboardListLimit is how many upcoming occurrences and recent failures
// the dashboard shows.
const dashboardListLimit = 10

// dashboard shows the picture of the last 24 hours, the upcoming
// occurrences, the recent failures and the collections the user may see:
// in the workspace of ?ws= (the header's switcher), else in all the
// user's workspaces; a workspace the user is not a member of is a 400.
func (s *Server) dashboard(c echo.Context) error {
	user := currentUser(c)
	ws, err := s.queryWorkspace(c, strings.TrimSpace(c.QueryParam("ws")))
	if err != nil {
		return err
	}
	d, err := s.dashboardView(c.Request().Context(), user.ID, ws, s.clock(), userZone(user))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DashboardPage(page(c, "Dashboard"), d))
}

// dashboardView gathers the dashboard of userID in workspace ws ("" for
// all of the user's) at now, its times in zone: four queries, each on an
// index (see models/dashboard_read.go).
func (s *Server) dashboardView(ctx context.Context, userID int64, ws string, now time.Time, zone *time.Location) (web.Dashboard, error) {
	rows, err := s.store.CollectionSummariesIn(ctx, userID, ws)
	if err != nil {
		return web.Dashboard{}, err
	}
	upcoming, err := s.store.UpcomingRunsIn(ctx, userID, ws, dashboardListLimit)
	if err != nil {
		return web.Dashboard{}, err
	}
	items := make([]web.UpcomingItem, len(upcoming))
	calsOf := map[string]recurrence.Calendars{} // by workspace
	for i, u := range upcoming {
		pj := web.ParseStored(u.Definition)
		if pj.Job.ExcludesCalendars() {
			cals, ok := calsOf[u.WorkspaceID]
			if !ok {
				if cals, err = s.catalog.WorkspaceCalendars(ctx, u.WorkspaceID); err != nil {
					return web.Dashboard{}, err
				}
				calsOf[u.WorkspaceID] = cals
			}
			pj = pj.With(cals)
		}
		items[i] = web.UpcomingItem{Run: u, Stored: pj}
	}
	failures, err := s.store.RecentFailuresIn(ctx, userID, ws, dashboardListLimit)
	if err != nil {
		return web.Dashboard{}, err
	}
	from := web.ActivityFrom(now)
	buckets, err := s.store.ExecutionBuckets(ctx, models.ExecutionBucketsParams{UserID: userID, Workspace: ws, From: from,
		To: from.Add(web.ActivityHours * time.Hour), Now: now})
	if err != nil {
		return web.Dashboard{}, err
	}
	return web.NewDashboard(rows, items, failures, buckets, from, now, zone).InWorkspace(ws), nil
}
