package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
	"sked/web"
)

// allJobsPage is the "All jobs" page: every job of the user's workspaces
// (of the workspace of ?ws=, the header's switcher, when set), searched, filtered and sorted as its query says (web.AllJobsParams), a
// keyset page at a time. An htmx request (the form as the user types, the
// paging links) gets only the #all-jobs-results fragment; a bad parameter
// is a 400 naming it.
func (s *Server) allJobsPage(c echo.Context) error {
	p, err := web.ParseAllJobsParams(c.QueryParams())
	if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
		return badRequest(pe.Param, pe.Message)
	} else if err != nil {
		return err
	}
	if p.Workspace, err = s.queryWorkspace(c, p.Workspace); err != nil {
		return err
	}
	ctx, now := c.Request().Context(), s.clock()
	visible, all, err := s.store.SearchScope(ctx, currentUser(c).ID)
	if err != nil {
		return err
	}
	visible, all = inWorkspace(visible, all, p.Workspace)
	scope, all, err := narrowScope(visible, all, p.Collection)
	if err != nil {
		return err
	}
	search := web.AllJobsSearch(p, scope, all, now)
	found, err := s.store.SearchJobs(ctx, search)
	if err != nil {
		return err
	}
	items, err := s.allJobsItems(ctx, found.Rows, now)
	if err != nil {
		return err
	}
	results := web.NewAllJobsResults(p, items, now)
	// The bulk form offers every match: counted (up to what one action
	// takes) only when the matches fill more than this page, and not for
	// the last result filter (a lookup per job: not counted).
	matching := int64(len(results.Rows))
	if p.Result != "" && (results.NextURL != "" || results.FirstURL != "") {
		matching = -1
	} else if found.Matches >= 0 {
		matching = found.Matches
	} else if results.NextURL != "" || results.FirstURL != "" {
		if matching, err = s.store.CountSearchJobs(ctx, search, catalog.MaxBulkJobs, found.Dense); err != nil {
			return err
		}
	}
	results.Bulk = web.NewBulkBar(p, len(results.Rows), matching, catalog.MaxBulkJobs, csrfToken(c))
	c.Response().Header().Add(echo.HeaderVary, hxRequest)
	if isHTMX(c) && c.Request().Header.Get("HX-History-Restore-Request") != "true" {
		// The form sends every field, empty or not: the address bar gets
		// the filter written as the page writes it (shorter, shareable).
		c.Response().Header().Set("HX-Push-Url", web.AllJobsPath(p.Values(true)))
		return render(c, http.StatusOK, web.AllJobsResultsFragment(results))
	}
	form := web.NewAllJobsForm(p, visible, zoneNames())
	flash, err := takeFlash(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.AllJobsPage(page(c, "All jobs"), web.AllJobsView{Form: form, Results: results, Flash: flash}))
}

// allJobsItems reads back the definitions of a page of jobs and their next
// runs (with their workspaces' calendars), as the collection page does.
func (s *Server) allJobsItems(ctx context.Context, rows []models.JobSearchRow, now time.Time) ([]web.AllJobsItem, error) {
	calsOf := map[string]recurrence.Calendars{}
	items := make([]web.AllJobsItem, len(rows))
	for i := range rows {
		r := &rows[i]
		cals, ok := calsOf[r.WorkspaceID]
		if !ok {
			var err error
			if cals, err = s.catalog.WorkspaceCalendars(ctx, r.WorkspaceID); err != nil {
				return nil, err
			}
			calsOf[r.WorkspaceID] = cals
		}
		pj := web.ParseStored(r.Definition).With(cals)
		items[i] = web.AllJobsItem{Row: r, Stored: pj}
		if i < web.AllJobsPageSize {
			d := &models.JobDetail{Job: models.Job{ID: r.ID, State: r.State, NextRunAt: r.NextRunAt, ScheduleBase: r.ScheduleBase,
				NeedsSchedule: r.NeedsSchedule, CreatedAt: r.CreatedAt}, ScheduledCount: r.ScheduledCount}
			items[i].Next = nextOccurrences(d, pj.Job, now, 1, cals)
		}
	}
	return items, nil
}
