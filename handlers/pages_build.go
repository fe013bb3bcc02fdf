package handlers

import (
	"context"
	"errors"
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

// The view builders of the collection and job pages: they read what a
// page shows (each query on an index) and format it into web's view
// models.

// Page sizes of the lists.
const (
	jobListPageSize  = 50
	historyPageSize  = 20
	nextOccurrenceN  = 10
	defaultRangeName = "24h"
)

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

// ------------------------------------------------------------ collection page

// collectionView is the whole collection page.
func (s *Server) collectionView(c echo.Context, row *models.CollectionRow, after string) (web.CollectionPageView, error) {
	ctx := c.Request().Context()
	base := collectionBase(row)
	v := web.CollectionPageView{
		Head: web.CollectionHead{Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name,
			URL: base, SKU: row.SKU, Location: row.Location},
		NewJobURL: base + "/jobs/new",
	}
	flash, err := takeFlash(c)
	if err != nil {
		return v, err
	}
	v.Flash = flash
	if v.Status, err = s.collectionStatusView(c, row, ""); err != nil {
		return v, err
	}
	v.Jobs, err = s.jobListView(ctx, row, after, s.clock())
	return v, err
}

// collectionStatusView is the state and quota fragment of a collection.
func (s *Server) collectionStatusView(c echo.Context, row *models.CollectionRow, msg string) (web.CollectionStatus, error) {
	q := row.Quota()
	n, err := s.store.CountJobsUpTo(c.Request().Context(), row.ID, q.MaxJobCount+1)
	if err != nil {
		return web.CollectionStatus{}, err
	}
	st := web.CollectionStatus{
		URL: collectionBase(row), CSRFToken: csrfToken(c),
		Badge:     collectionStateBadge(row.State),
		CanEnable: row.State != "Enabled", CanDisable: row.State == "Enabled",
		Message:  msg,
		JobCount: int(n), MaxJobs: q.MaxJobCount,
		QuotaText:     fmt.Sprintf("%s of %s jobs", fmtCount(n), fmtCount(int64(q.MaxJobCount))),
		MaxRecurrence: "every " + q.MaxRecurrence.String(),
		MaxOccurrence: "unlimited",
	}
	if q.MaxJobOccurrence > 0 {
		st.MaxOccurrence = "at most " + fmtCount(int64(q.MaxJobOccurrence))
	}
	return st, nil
}

// jobListView is a page of a collection's jobs: those named after after,
// in name order (keyset).
func (s *Server) jobListView(ctx context.Context, row *models.CollectionRow, after string, now time.Time) (web.JobList, error) {
	jobs, err := s.store.CollectionJobs(ctx, row.ID, after, jobListPageSize+1)
	if err != nil {
		return web.JobList{}, err
	}
	cals, err := s.catalog.WorkspaceCalendars(ctx, row.WorkspaceID)
	if err != nil {
		return web.JobList{}, err
	}
	base := collectionBase(row)
	var l web.JobList
	if after != "" {
		l.FirstURL = base
	}
	if len(jobs) > jobListPageSize {
		jobs = jobs[:jobListPageSize]
		l.NextURL = base + "?after=" + url.QueryEscape(jobs[len(jobs)-1].Name)
	}
	for i := range jobs {
		j := &jobs[i]
		pj := parseStored(j.Definition).with(cals)
		zone := pj.zone()
		r := web.JobRow{
			Name: j.Name, URL: base + "/jobs/" + url.PathEscape(j.Name),
			Badge:       jobStateBadge(j.State),
			Description: pj.describe(scheduleBase(j.ScheduleBase, j.CreatedAt)),
			Executions:  fmtCount(j.ExecutionCount), Failures: fmtCount(j.FailureCount), Faulted: fmtCount(j.FaultedCount),
		}
		if pj.Job == nil {
			r.Description = pj.Problem
		}
		next := nextOccurrences(&models.JobDetail{Job: j.Job}, pj.Job, now, 1, cals)
		if len(next) > 0 {
			r.Next = instantIn(next[0], zone, now)
		} else {
			r.NextNote = noNextNote(j.State)
		}
		if j.LastStatus != nil {
			r.LastResult = historyBadge(*j.LastStatus)
			r.LastAt = instantPtr(j.LastStartTime, zone, now)
		}
		l.Rows = append(l.Rows, r)
	}
	return l, nil
}

// noNextNote says briefly why a job has no next run.
func noNextNote(state string) string {
	switch state {
	case "disabled":
		return "Disabled"
	case "completed":
		return "None (completed)"
	case "faulted":
		return "None (faulted)"
	}
	return "None"
}

// -------------------------------------------------------------------- job page

// historyParams are the query parameters of the job and history pages:
// the timeline's range, the table's filters and its keyset cursor.
type historyParams struct {
	Range          timelineRange
	Status, Action string
	BeforeStart    time.Time
	BeforeID       int64
}

// parseHistoryParams reads range (24h, 7d, 30d, 60d), status (Completed,
// Failed, Postponed), action (MainAction, ErrorAction) and before
// ("<start RFC 3339>,<id>"); a bad value is a 400 naming it.
func parseHistoryParams(c echo.Context) (historyParams, error) {
	p := historyParams{Range: timelineRanges[0]}
	bad := func(format string, args ...any) error {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(format, args...))
	}
	if v := c.QueryParam("range"); v != "" {
		found := false
		for _, r := range timelineRanges {
			if r.Value == v {
				p.Range, found = r, true
			}
		}
		if !found {
			return p, bad("The range %q is not one of 24h, 7d, 30d, 60d.", v)
		}
	}
	switch v := c.QueryParam("status"); v {
	case "", models.StatusCompleted, models.StatusFailed, models.StatusPostponed:
		p.Status = v
	default:
		return p, bad("The status %q is not one of Completed, Failed, Postponed.", v)
	}
	switch v := c.QueryParam("action"); v {
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

// query writes the table's parameters (and extra ones) as a query string,
// "" when there are none.
func (p historyParams) query(withCursor bool) string {
	q := url.Values{}
	if p.Status != "" {
		q.Set("status", p.Status)
	}
	if p.Action != "" {
		q.Set("action", p.Action)
	}
	if withCursor && p.BeforeID != 0 {
		q.Set("before", p.BeforeStart.UTC().Format(time.RFC3339Nano)+","+strconv.FormatInt(p.BeforeID, 10))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// jobView is the whole job page (or the history page).
func (s *Server) jobView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, p historyParams, historyOnly bool) (web.JobPageView, error) {
	ctx := c.Request().Context()
	now := s.clock()
	pj, err := s.parseStoredIn(ctx, row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobPageView{}, err
	}
	jb := jobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	v := web.JobPageView{
		HistoryOnly: historyOnly,
		Head: web.JobHead{
			Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Collection: row.Name, CollectionURL: collectionBase(row),
			Name: j.Name, URL: jb, EditURL: jb + "/edit", ExportURL: jb + "/export.json", HistoryURL: jb + "/history",
			Description: pj.describe(scheduleBase(j.ScheduleBase, j.CreatedAt)), Zone: pj.zone().String(), Target: pj.target(),
			Problem: pj.Problem, Cron: pj.cron(), FeedURL: s.absoluteURL(c, s.feedPath(row, j)),
		},
		Filter: web.HistoryFilter{URL: jb + "/history", Status: p.Status, Action: p.Action,
			Statuses: []web.Choice{{Value: "", Label: "Any status"}, {Value: models.StatusCompleted, Label: "Completed"},
				{Value: models.StatusFailed, Label: "Failed"}, {Value: models.StatusPostponed, Label: "Postponed"}},
			Actions: []web.Choice{{Value: "", Label: "Any action"}, {Value: models.MainAction, Label: "MainAction"},
				{Value: models.ErrorAction, Label: "ErrorAction"}},
		},
	}
	if !historyOnly {
		flash, err := takeFlash(c)
		if err != nil {
			return v, err
		}
		if v.Status, err = s.jobStatusView(c, row, j, flash, ""); err != nil {
			return v, err
		}
	}
	if v.Timeline, err = s.timelineView(ctx, row, j, p.Range, now, historyOnly); err != nil {
		return v, err
	}
	v.Table, err = s.historyTableView(ctx, row, j, p, now)
	return v, err
}

// jobStatusView is the status fragment of a job.
func (s *Server) jobStatusView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, msg, refused string) (web.JobStatus, error) {
	now := s.clock()
	pj, err := s.parseStoredIn(c.Request().Context(), row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobStatus{}, err
	}
	zone := pj.zone()
	st := web.JobStatus{
		URL: jobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name), CSRFToken: csrfToken(c), Name: j.Name,
		Badge:  jobStateBadge(j.State),
		CanRun: j.State == "enabled" && row.State == "Enabled", CanEnable: j.State == "disabled", CanDisable: j.State == "enabled",
		Message: msg, Error: refused,
		Executions: fmtCount(j.ExecutionCount), Failures: fmtCount(j.FailureCount), Faulted: fmtCount(j.FaultedCount),
		Zone: zone.String(),
	}
	if row.State != "Enabled" {
		st.CollectionNote = fmt.Sprintf("The collection %s is %s: none of its jobs runs until it is enabled again.",
			row.Name, strings.ToLower(row.State))
	}
	last, err := s.store.FilteredHistory(c.Request().Context(), models.HistoryQuery{JobID: j.ID, Limit: 1})
	if err != nil {
		return st, err
	}
	if len(last) > 0 {
		st.LastRun, st.LastResult = instantIn(last[0].StartTime, zone, now), historyBadge(last[0].Status)
	} else {
		st.LastRun = instantPtr(j.LastRunAt, zone, now)
	}
	for _, t := range nextOccurrences(j, pj.Job, now, nextOccurrenceN, pj.cals) {
		st.Next = append(st.Next, instantIn(t, zone, now))
	}
	if len(st.Next) == 0 {
		switch j.State {
		case "disabled":
			st.NextNote = "The job is disabled: nothing is scheduled. Enabling it schedules it from then on."
		case "completed":
			st.NextNote = "The job is completed: no occurrence is left."
		case "faulted":
			st.NextNote = "The job is faulted: its last occurrence failed and none is left."
		default:
			st.NextNote = "No occurrence is left."
		}
	}
	return st, nil
}

// timelineView draws the job's history over r, ending now: each execution
// when there are at most timelineMarkLimit, groups otherwise.
// historyPage makes the range links point to the history page.
func (s *Server) timelineView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, r timelineRange, now time.Time, historyPage bool) (web.TimelineView, error) {
	jb := jobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	in := timelineInput{Range: r, From: now.Add(-r.Span), To: now, Now: now, Zone: parseStored(j.Definition).zone(),
		PageURL: jb + "?range=", FragmentURL: jb + "/timeline?range="}
	if historyPage {
		in.PageURL, in.FragmentURL = jb+"/history?range=", jb+"/timeline?page=history&range="
	}
	in.URL = in.FragmentURL + r.Value
	// The end is inclusive of now: an execution that started this very
	// instant is on the picture.
	entries, err := s.store.HistoryBetween(ctx, models.HistoryBetweenParams{JobID: j.ID, From: in.From,
		To: now.Add(time.Millisecond), Limit: timelineMarkLimit + 1})
	if err != nil {
		return web.TimelineView{}, err
	}
	if len(entries) <= timelineMarkLimit {
		in.Entries = entries
	} else {
		in.Bucketed = true
		if in.Buckets, err = s.store.HistoryBuckets(ctx, models.HistoryBucketsParams{JobID: j.ID, From: in.From,
			To: now.Add(time.Millisecond), Width: r.Bucket}); err != nil {
			return web.TimelineView{}, err
		}
	}
	return timeline(in), nil
}

// historyTableView is one page of the job's history table: the entries
// after the cursor of p that match its filters, newest first.
func (s *Server) historyTableView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, p historyParams, now time.Time) (web.HistoryTable, error) {
	entries, err := s.store.FilteredHistory(ctx, models.HistoryQuery{JobID: j.ID, Status: p.Status, Action: p.Action,
		BeforeStart: p.BeforeStart, BeforeID: p.BeforeID, Limit: historyPageSize + 1})
	if err != nil {
		return web.HistoryTable{}, err
	}
	zone := parseStored(j.Definition).zone()
	hb := jobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name) + "/history"
	t := web.HistoryTable{URL: hb + p.query(true), Filtered: p.Status != "" || p.Action != "", Zone: zone.String()}
	if p.BeforeID != 0 {
		t.NewestURL = hb + p.query(false)
	}
	if len(entries) > historyPageSize {
		entries = entries[:historyPageSize]
		last := entries[len(entries)-1]
		older := p
		older.BeforeStart, older.BeforeID = last.StartTime, last.ID
		t.OlderURL = hb + older.query(true)
	}
	for _, e := range entries {
		r := web.HistoryRow{
			ID: strconv.FormatInt(e.ID, 10), Start: instantIn(e.StartTime, zone, now), Expected: instantIn(e.ExpectedExecutionTime, zone, now),
			Badge: historyBadge(e.Status), Action: e.ActionName, Attempt: strconv.Itoa(e.RetryCount),
			Occurrence: "#" + strconv.FormatInt(e.RepeatCount, 10), Lateness: latenessText(e.LatenessMs), Duration: "—",
			Summary: messageSummary(e.Message), Message: e.Message,
		}
		if e.EndTime != nil {
			r.Duration = spanText(e.EndTime.Sub(e.StartTime))
		}
		t.Rows = append(t.Rows, r)
	}
	return t, nil
}

// jobDeleteView is the delete confirmation page.
func (s *Server) jobDeleteView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, problem string) web.JobDeleteView {
	jb := jobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	return web.JobDeleteView{Name: j.Name, Collection: row.Name, URL: jb + "/delete", CancelURL: jb, CSRFToken: csrfToken(c), Error: problem}
}

// ---------------------------------------------------------------- flashes

// addFlash keeps msg in the session for the next page (after a redirect).
func addFlash(c echo.Context, msg string) error {
	sess := session(c)
	if sess == nil {
		return nil
	}
	sess.AddFlash(msg)
	return sess.Save(c.Request(), c.Response())
}

// takeFlash returns (and forgets) the messages kept for this page.
func takeFlash(c echo.Context) (string, error) {
	sess := session(c)
	if sess == nil {
		return "", nil
	}
	flashes := sess.Flashes()
	if len(flashes) == 0 {
		return "", nil
	}
	var msgs []string
	for _, f := range flashes {
		if s, ok := f.(string); ok {
			msgs = append(msgs, s)
		}
	}
	return strings.Join(msgs, " "), sess.Save(c.Request(), c.Response())
}
