package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The execution detail page, the re-run of a failed occurrence (page and
// API), the running-now page of a workspace and the trends of the job
// page.

// historyID reads the :id of a history path: a positive integer, else a
// 400 naming the field.
func historyID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("id", fmt.Sprintf("%q is not a history entry id (a positive integer)", c.Param("id")))
	}
	return id, nil
}

// executionNotFound is the 404 of an unknown history entry of job.
func executionNotFound(err error, id int64, job string) error {
	if errors.Is(err, models.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no history entry %d of the job %s.", id, job))
	}
	return err
}

// executionPage shows one history entry: the request sent, the response,
// the times, the instance, and the re-run form.
func (s *Server) executionPage(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	id, err := historyID(c)
	if err != nil {
		return err
	}
	flash, err := takeFlash(c)
	if err != nil {
		return err
	}
	v, err := s.executionView(c, row, j, id)
	if err != nil {
		return err
	}
	v.Flash = flash
	return render(c, http.StatusOK, web.ExecutionPage(page(c, v.Title), v))
}

// executionView is the detail page of entry id of j.
func (s *Server) executionView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, id int64) (web.ExecutionPageView, error) {
	d, err := s.store.ExecutionDetail(c.Request().Context(), j.ID, id)
	if err != nil {
		return web.ExecutionPageView{}, executionNotFound(err, id, j.Name)
	}
	v := web.NewExecutionView(row, j, d, web.CanFor(string(s.roleIn(c, row.WorkspaceID))), s.clock())
	v.CSRFToken = csrfToken(c)
	if v.Triggers, err = s.executionTriggers(c.Request().Context(), j, d); err != nil { // job_page_triggers.go
		return v, err
	}
	return v, nil
}

// executionRerun re-runs the failed occurrence of a history entry, then
// goes back to the job page (form field back=job) or the entry's page
// with a message; a refusal (a succeeded or open occurrence, a disabled or
// finished job) shows the entry's page with the reason (409).
func (s *Server) executionRerun(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	id, err := historyID(c)
	if err != nil {
		return err
	}
	attempt, err := s.jobs.Rerun(c.Request().Context(), actorOf(c), row, &j.Job, id)
	if err != nil {
		refused := rerunRefusal(err)
		if refused == "" {
			return executionNotFound(err, id, j.Name)
		}
		v, verr := s.executionView(c, row, j, id)
		if verr != nil {
			return verr
		}
		v.Error = refused
		return render(c, http.StatusConflict, web.ExecutionPage(page(c, v.Title), v))
	}
	if err := addFlash(c, web.RerunMessage(id, attempt)); err != nil {
		return err
	}
	to := web.ExecutionPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name, id)
	if c.FormValue("back") == "job" {
		to = web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	}
	return redirect(c, to)
}

// rerunRefusal is the message of an error that refuses a re-run for a
// reason the user can act on, or "".
func rerunRefusal(err error) string {
	var ce *models.ConflictError
	if errors.As(err, &ce) {
		return ce.Message
	}
	return refusal(err)
}

// apiRerun answers POST …/jobs/{job}/history/{id}/rerun of the REST API:
// 202 Accepted with the new attempt's id (its execution tag), or 409 with
// the reason of a refusal.
func (s *Server) apiRerun(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	j, err := s.job(c, coll)
	if err != nil {
		return err
	}
	id, err := historyID(c)
	if err != nil {
		return err
	}
	attempt, err := s.jobs.Rerun(c.Request().Context(), actorOf(c), coll, j, id)
	if err != nil {
		return executionNotFound(err, id, j.Name)
	}
	return c.JSON(http.StatusAccepted, map[string]any{"rerunOf": id, "executionTag": strconv.FormatInt(attempt, 10)})
}

// runningPage shows the attempts in flight in a workspace; htmx (which
// polls it) gets the table alone.
func (s *Server) runningPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	list, err := s.store.RunningAttempts(c.Request().Context(), ws, models.MaxRunningShown)
	if err != nil {
		return err
	}
	v := web.NewRunningView(ws, list, models.MaxRunningShown, s.clock())
	if isHTMX(c) {
		return render(c, http.StatusOK, web.RunningFragment(v))
	}
	return render(c, http.StatusOK, web.RunningPage(page(c, "Running now"), v))
}

// jobTrends is the trends fragment of a job, which refreshes itself with
// the rest of the job page after a run; without htmx it is the job page.
func (s *Server) jobTrends(c echo.Context) error {
	if !isHTMX(c) {
		return redirect(c, localRedirectTarget(web.JobPath(c.Param("ws"), c.Param("rg"), c.Param("jc"), c.Param("job"))))
	}
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	v, err := s.trendsView(c.Request().Context(), row, j, s.clock())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.TrendsFragment(v))
}

// trendsView reads the trends of job j of row at now: its last runs and
// its success counts over web.TrendPeriods.
func (s *Server) trendsView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, now time.Time) (web.TrendsView, error) {
	runs, err := s.store.RecentRuns(ctx, j.ID, web.TrendRuns)
	if err != nil {
		return web.TrendsView{}, err
	}
	since := make([]time.Time, len(web.TrendPeriods))
	for i, p := range web.TrendPeriods {
		since[i] = now.Add(-p.Span)
	}
	counts, err := s.store.SuccessSince(ctx, j.ID, since...)
	if err != nil {
		return web.TrendsView{}, err
	}
	return web.NewTrendsView(web.JobTrendsPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name), runs, counts), nil
}

// allowRerun lets the history table show its re-run buttons to operators.
func (s *Server) allowRerun(c echo.Context, row *models.CollectionRow, t *web.HistoryTable) {
	t.CanRerun = web.CanFor(string(s.roleIn(c, row.WorkspaceID))).Run
	t.CSRFToken = csrfToken(c)
}
