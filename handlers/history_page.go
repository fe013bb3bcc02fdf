package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// A job's history page (SPEC §9) and the fragments it shares with the job
// page: the timeline over a range (each execution, or groups when there
// are many) and the history table (filters and keyset pages, newest
// first).

// jobHistoryPage shows a job's history (timeline and table); htmx gets the
// table (filters and keyset pages).
func (s *Server) jobHistoryPage(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	p, err := parseHistoryParams(c)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		t, err := s.historyTableView(c.Request().Context(), row, j, p, s.clock())
		if err != nil {
			return err
		}
		s.allowRerun(c, row, &t)
		return render(c, http.StatusOK, web.HistoryTableFragment(t))
	}
	v, err := s.jobView(c, row, j, p, true)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.JobPage(page(c, "History of "+j.Name), v))
}

// jobTimeline is the timeline fragment for one range; without htmx it is
// the history page at that range.
func (s *Server) jobTimeline(c echo.Context) error {
	if !isHTMX(c) {
		return redirect(c, localRedirectTarget(web.JobHistoryPath(c.Param("ws"), c.Param("rg"), c.Param("jc"), c.Param("job"))+"?range="+url.QueryEscape(c.QueryParam("range"))))
	}
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	p, err := parseHistoryParams(c)
	if err != nil {
		return err
	}
	t, err := s.timelineView(c.Request().Context(), row, j, p.Range, s.clock(), c.QueryParam("page") == "history")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.TimelineFragment(t))
}

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
