package handlers

import (
	"context"
	"net/http"
	"strconv"
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
// occurrences, the recent failures and the collections the user may see.
func (s *Server) dashboard(c echo.Context) error {
	d, err := s.dashboardView(c.Request().Context(), currentUser(c).ID, s.clock())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DashboardPage(page(c, "Dashboard"), d))
}

// dashboardView gathers the dashboard of userID at now: four queries, each
// on an index (see models/dashboard_store.go).
func (s *Server) dashboardView(ctx context.Context, userID int64, now time.Time) (web.Dashboard, error) {
	d := web.Dashboard{NewCollectionURL: "/collections/new"}
	rows, err := s.store.CollectionSummaries(ctx, userID)
	if err != nil {
		return d, err
	}
	for _, r := range rows {
		d.Collections = append(d.Collections, web.CollectionRow{
			Workspace: r.WorkspaceID, ResourceGroup: r.ResourceGroup, Name: r.Name,
			URL:   collectionPath(r.WorkspaceID, r.ResourceGroup, r.Name),
			State: collectionStateBadge(r.State), SKU: r.SKU,
			Enabled: r.Enabled, Disabled: r.Disabled, Completed: r.Completed, Faulted: r.Faulted,
		})
	}
	upcoming, err := s.store.UpcomingRuns(ctx, userID, dashboardListLimit)
	if err != nil {
		return d, err
	}
	calsOf := map[string]recurrence.Calendars{} // by workspace
	for _, u := range upcoming {
		pj := parseStored(u.Definition)
		if pj.Job.ExcludesCalendars() {
			cals, ok := calsOf[u.WorkspaceID]
			if !ok {
				if cals, err = s.catalog.WorkspaceCalendars(ctx, u.WorkspaceID); err != nil {
					return d, err
				}
				calsOf[u.WorkspaceID] = cals
			}
			pj = pj.with(cals)
		}
		d.Upcoming = append(d.Upcoming, web.UpcomingRow{
			Job: u.JobName, JobURL: jobPath(u.WorkspaceID, u.ResourceGroup, u.Collection, u.JobName),
			Collection: u.Collection, CollectionURL: collectionPath(u.WorkspaceID, u.ResourceGroup, u.Collection),
			Description: pj.describe(scheduleBase(u.ScheduleBase, u.CreatedAt)),
			At:          instantIn(u.NextRunAt, pj.zone(), now),
		})
	}
	failures, err := s.store.RecentFailures(ctx, userID, dashboardListLimit)
	if err != nil {
		return d, err
	}
	for _, f := range failures {
		d.Failures = append(d.Failures, web.FailureRow{
			Job: f.JobName, JobURL: jobPath(f.WorkspaceID, f.ResourceGroup, f.Collection, f.JobName),
			Collection: f.Collection, CollectionURL: collectionPath(f.WorkspaceID, f.ResourceGroup, f.Collection),
			At:     instantIn(f.StartTime, parseStored(f.Definition).zone(), now),
			Action: f.ActionName, Attempt: strconv.Itoa(f.RetryCount),
			Summary: messageSummary(f.Message), Message: f.Message,
		})
	}
	// The 24 hours that end with the current hour, hour by hour (UTC).
	from := now.UTC().Truncate(time.Hour).Add(-(actHours - 1) * time.Hour)
	buckets, err := s.store.ExecutionBuckets(ctx, models.ExecutionBucketsParams{UserID: userID, From: from,
		To: from.Add(actHours * time.Hour), Now: now})
	if err != nil {
		return d, err
	}
	d.Activity = activityChart(buckets, from)
	return d, nil
}
