package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The view builders of the collection and job pages: they read what a
// page shows (each query on an index) and hand it to web's presenters.

// pageJob loads the collection and the job of a page path, after the
// membership check of pageCollection (404 for a job that does not exist).
func (s *Server) pageJob(c echo.Context) (*models.CollectionRow, *models.JobDetail, error) {
	row, err := s.pageCollection(c)
	if err != nil {
		return nil, nil, err
	}
	j, err := s.store.JobDetail(c.Request().Context(), row.ID, c.Param("job"))
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"There is no job %q in the job collection %s.", c.Param("job"), row.Name))
	}
	if err != nil {
		return nil, nil, err
	}
	return row, j, nil
}

// parseStoredIn reads a stored definition of a job of workspace ws with
// the workspace's calendars when the job excludes some (no query when it
// excludes none).
func (s *Server) parseStoredIn(ctx context.Context, ws string, def []byte) (web.StoredJob, error) {
	pj := web.ParseStored(def)
	cals, err := s.catalog.CalendarsFor(ctx, ws, pj.Job)
	if err != nil {
		return pj, err
	}
	return pj.With(cals), nil
}

// ------------------------------------------------------------ collection page

// collectionView is the whole collection page.
func (s *Server) collectionView(c echo.Context, row *models.CollectionRow, after string) (web.CollectionPageView, error) {
	flash, err := takeFlash(c)
	if err != nil {
		return web.CollectionPageView{}, err
	}
	v := web.NewCollectionPageView(row, flash)
	v.Can = web.CanFor(string(s.roleIn(c, row.WorkspaceID)))
	if v.LastChanged, err = s.lastChanged(c.Request().Context(), row.WorkspaceID,
		models.AuditCollectionResource(row.ResourceGroup, row.Name)); err != nil {
		return v, err
	}
	if v.Status, err = s.collectionStatusView(c, row, ""); err != nil {
		return v, err
	}
	if v.Jobs, err = s.jobListView(c.Request().Context(), row, after, s.clock()); err != nil {
		return v, err
	}
	if v.Signing, err = s.signingView(c, row, nil); err != nil {
		return v, err
	}
	v.Alerts, err = s.alertsView(c, row.WorkspaceID, alertScope{ResourceGroup: row.ResourceGroup, Collection: row.Name}, nil)
	return v, err
}

// collectionStatusView is the state and quota fragment of a collection.
func (s *Server) collectionStatusView(c echo.Context, row *models.CollectionRow, msg string) (web.CollectionStatus, error) {
	n, err := s.store.CountJobsUpTo(c.Request().Context(), row.ID, row.Quota().MaxJobCount+1)
	if err != nil {
		return web.CollectionStatus{}, err
	}
	st := web.NewCollectionStatus(row, n, csrfToken(c), msg)
	st.StateNote = web.NewCollectionStateNote(row, s.clock())
	st.Allow(web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	return st, nil
}

// jobListView is a page of a collection's jobs: those named after after,
// in name order (keyset).
func (s *Server) jobListView(ctx context.Context, row *models.CollectionRow, after string, now time.Time) (web.JobList, error) {
	jobs, err := s.store.CollectionJobs(ctx, row.ID, after, web.JobListPageSize+1)
	if err != nil {
		return web.JobList{}, err
	}
	cals, err := s.catalog.WorkspaceCalendars(ctx, row.WorkspaceID)
	if err != nil {
		return web.JobList{}, err
	}
	items := make([]web.JobListItem, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		pj := web.ParseStored(j.Definition).With(cals)
		items[i] = web.JobListItem{Job: j, Stored: pj}
		if i < web.JobListPageSize {
			items[i].Next = nextOccurrences(&models.JobDetail{Job: j.Job}, pj.Job, now, 1, cals)
		}
	}
	return web.NewJobList(row, after, items, now), nil
}

// -------------------------------------------------------------------- job page

// parseHistoryParams reads range (24h, 7d, 30d, 60d), status (Completed,
// Failed, Postponed), action (MainAction, ErrorAction) and before
// ("<start RFC 3339>,<id>"); a bad value is a 400 naming it.
func parseHistoryParams(c echo.Context) (web.HistoryParams, error) {
	p := web.HistoryParams{Range: web.TimelineRanges[0]}
	bad := func(format string, args ...any) error {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(format, args...))
	}
	if v := c.QueryParam("range"); v != "" {
		found := false
		for _, r := range web.TimelineRanges {
			if r.Value == v {
				p.Range, found = r, true
			}
		}
		if !found {
			return p, bad("The range %q is not one of 24h, 7d, 30d, 60d.", v)
		}
	}
	switch v := models.HistoryStatus(c.QueryParam("status")); v {
	case "", models.StatusCompleted, models.StatusFailed, models.StatusPostponed:
		p.Status = v
	default:
		return p, bad("The status %q is not one of Completed, Failed, Postponed.", v)
	}
	switch v := models.ActionName(c.QueryParam("action")); v {
	case "", models.MainAction, models.ErrorAction:
		p.Action = v
	default:
		return p, bad("The action %q is not one of MainAction, ErrorAction.", v)
	}
	if v := c.QueryParam("before"); v != "" {
		ts, id, ok := strings.Cut(v, ",")
		t, err := time.Parse(time.RFC3339Nano, ts)
		n, err2 := strconv.ParseInt(id, 10, 64)
		if !ok || err != nil || err2 != nil || n <= 0 {
			return p, bad("The cursor before=%q is not \"<start time RFC 3339>,<id>\".", v)
		}
		p.BeforeStart, p.BeforeID = t, n
	}
	return p, nil
}

// jobView is the whole job page (or the history page).
func (s *Server) jobView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, p web.HistoryParams, historyOnly bool) (web.JobPageView, error) {
	ctx := c.Request().Context()
	now := s.clock()
	pj, err := s.parseStoredIn(ctx, row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobPageView{}, err
	}
	v := web.NewJobPageView(row, j, pj, s.absoluteURL(c, s.feedPath(row, j)), p, historyOnly)
	v.Can = web.CanFor(string(s.roleIn(c, row.WorkspaceID)))
	if !historyOnly {
		flash, err := takeFlash(c)
		if err != nil {
			return v, err
		}
		if v.Status, err = s.jobStatusView(c, row, j, flash, ""); err != nil {
			return v, err
		}
		if v.LastChanged, err = s.lastChanged(ctx, row.WorkspaceID, models.AuditJobResource(row.ResourceGroup, row.Name, j.Name)); err != nil {
			return v, err
		}
		scope := alertScope{ResourceGroup: row.ResourceGroup, Collection: row.Name, Job: j.Name}
		if v.Alerts, err = s.alertsView(c, row.WorkspaceID, scope, nil); err != nil {
			return v, err
		}
	}
	if v.Timeline, err = s.timelineView(ctx, row, j, p.Range, now, historyOnly); err != nil {
		return v, err
	}
	if v.Table, err = s.historyTableView(ctx, row, j, p, now); err != nil {
		return v, err
	}
	s.allowRerun(c, row, &v.Table)
	if !historyOnly {
		v.Trends, err = s.trendsView(ctx, j, now)
	}
	return v, err
}

// jobStatusView is the status fragment of a job.
func (s *Server) jobStatusView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, msg, refused string) (web.JobStatus, error) {
	now := s.clock()
	pj, err := s.parseStoredIn(c.Request().Context(), row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobStatus{}, err
	}
	last, err := s.store.FilteredHistory(c.Request().Context(), models.HistoryQuery{JobID: j.ID, Limit: 1})
	if err != nil {
		return web.JobStatus{}, err
	}
	var latest *models.HistoryEntry
	if len(last) > 0 {
		latest = &last[0]
	}
	next := nextOccurrences(j, pj.Job, now, web.NextOccurrenceN, pj.Cals)
	st := web.NewJobStatus(row, j, pj, latest, next, now)
	st.CSRFToken, st.Message, st.Error = csrfToken(c), msg, refused
	st.Allow(web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	return st, nil
}

// timelineView draws the job's history over r, ending now: each execution
// when there are at most web.TimelineMarkLimit, groups otherwise.
// historyPage makes the range links point to the history page.
func (s *Server) timelineView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, r web.TimelineRange, now time.Time, historyPage bool) (web.TimelineView, error) {
	in := web.NewTimelineInput(row, j, r, now, historyPage)
	// The end is inclusive of now: an execution that started this very
	// instant is on the picture.
	entries, err := s.store.HistoryBetween(ctx, models.HistoryBetweenParams{JobID: j.ID, From: in.From,
		To: now.Add(time.Millisecond), Limit: web.TimelineMarkLimit + 1})
	if err != nil {
		return web.TimelineView{}, err
	}
	if len(entries) <= web.TimelineMarkLimit {
		in.Entries = entries
	} else {
		in.Bucketed = true
		if in.Buckets, err = s.store.HistoryBuckets(ctx, models.HistoryBucketsParams{JobID: j.ID, From: in.From,
			To: now.Add(time.Millisecond), Width: r.Bucket}); err != nil {
			return web.TimelineView{}, err
		}
	}
	if in.NeverRan && len(in.Entries) == 0 && !in.Bucketed {
		pj, err := s.parseStoredIn(ctx, row.WorkspaceID, j.Definition)
		if err != nil {
			return web.TimelineView{}, err
		}
		if next := nextOccurrences(j, pj.Job, now, 1, pj.Cals); len(next) > 0 {
			in.FirstRun = &next[0]
		}
	}
	return web.NewTimelineView(in), nil
}

// historyTableView is one page of the job's history table: the entries
// after the cursor of p that match its filters, newest first.
func (s *Server) historyTableView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, p web.HistoryParams, now time.Time) (web.HistoryTable, error) {
	entries, err := s.store.FilteredHistory(ctx, models.HistoryQuery{JobID: j.ID, Status: p.Status, Action: p.Action,
		BeforeStart: p.BeforeStart, BeforeID: p.BeforeID, Limit: web.HistoryPageSize + 1})
	if err != nil {
		return web.HistoryTable{}, err
	}
	return web.NewHistoryTable(row, j, p, entries, now), nil
}

// jobDeleteView is the delete confirmation page.
func (s *Server) jobDeleteView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, problem string) web.JobDeleteView {
	return web.NewJobDeleteView(row, j, csrfToken(c), problem)
}

// ---------------------------------------------------------------- flashes
