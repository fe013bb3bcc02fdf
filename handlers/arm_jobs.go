package handlers

import (
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// listJobs answers GET …/jobs, optionally filtered on state.
func (s *Server) listJobs(c echo.Context) error {
	p, err := parsePaging(c)
	if err != nil {
		return err
	}
	state, err := parseFilter(c, "state", models.JobStates)
	if err != nil {
		return err
	}
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	jobs, err := s.store.ListJobs(c.Request().Context(), models.ListJobsParams{CollectionID: coll.ID, State: state, Skip: p.skip, Limit: p.top + 1})
	if err != nil {
		return err
	}
	cals, err := s.catalog.WorkspaceCalendars(c.Request().Context(), coll.WorkspaceID)
	if err != nil {
		return err
	}
	now := s.clock()
	out := armList[armJob]{Value: []armJob{}, NextLink: s.nextLink(c, p, len(jobs))}
	for i := range jobs[:min(len(jobs), p.top)] {
		out.Value = append(out.Value, toARMJob(coll, &jobs[i], now, cals))
	}
	return c.JSON(http.StatusOK, out)
}

// getJob answers GET …/jobs/{job}.
func (s *Server) getJob(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	j, err := s.job(c, coll)
	if err != nil {
		return err
	}
	out, err := s.armJobOf(c, coll, j)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// putJob answers PUT …/jobs/{job}: 201 created, 200 replaced.
func (s *Server) putJob(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	body, err := readBody(c, maxAPIBody)
	if err != nil {
		return err
	}
	j, created, err := s.jobs.PutJob(c.Request().Context(), actorOf(c), coll, c.Param("job"), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	out, err := s.armJobOf(c, coll, j)
	if err != nil {
		return err
	}
	return c.JSON(status, out)
}

// patchJob answers PATCH …/jobs/{job}.
func (s *Server) patchJob(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	body, err := readBody(c, maxAPIBody)
	if err != nil {
		return err
	}
	cur, err := s.job(c, coll)
	if err != nil {
		return err
	}
	j, err := s.jobs.PatchJob(c.Request().Context(), actorOf(c), coll, cur.Name, body)
	if err != nil {
		return err
	}
	out, err := s.armJobOf(c, coll, j)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deleteJob answers DELETE …/jobs/{job}.
func (s *Server) deleteJob(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	cur, err := s.job(c, coll)
	if err != nil {
		return err
	}
	if err := s.jobs.DeleteJob(c.Request().Context(), actorOf(c), coll, cur.Name); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// runJob answers POST …/jobs/{job}/run: an occurrence starts at once. An
// optional body {"request": {"headers": {…}, "body": "…"}} changes the
// request of this one run (SPEC §16.4; editors only).
func (s *Server) runJob(c echo.Context) error {
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	j, err := s.job(c, coll)
	if err != nil {
		return err
	}
	var changes *jobdef.RunChanges
	if c.Request().ContentLength != 0 {
		body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxAPIBody+1))
		if err != nil {
			return fmt.Errorf("read body: %w", err)
		}
		if len(body) > maxAPIBody {
			return badRequest("body", fmt.Sprintf("the request body is over the maximum of %d bytes", maxAPIBody))
		}
		if changes, err = jobdef.ParseRunChanges(body); err != nil {
			return err
		}
	}
	if _, err := s.jobs.RunNowWith(c.Request().Context(), actorOf(c), coll, j, changes); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// listHistory answers GET …/jobs/{job}/history, newest first, optionally
// filtered on status.
func (s *Server) listHistory(c echo.Context) error {
	p, err := parsePaging(c)
	if err != nil {
		return err
	}
	status, err := parseFilter(c, "status", models.HistoryStatuses)
	if err != nil {
		return err
	}
	coll, err := s.collection(c)
	if err != nil {
		return err
	}
	j, err := s.job(c, coll)
	if err != nil {
		return err
	}
	entries, err := s.store.HistoryPage(c.Request().Context(), models.HistoryPageParams{JobID: j.ID, Status: status, Skip: p.skip, Limit: p.top + 1})
	if err != nil {
		return err
	}
	out := armList[armHistory]{Value: []armHistory{}, NextLink: s.nextLink(c, p, len(entries))}
	for i := range entries[:min(len(entries), p.top)] {
		out.Value = append(out.Value, toARMHistory(coll, j, &entries[i]))
	}
	if err := s.addTriggerLinks(c.Request().Context(), j, entries[:len(out.Value)], out.Value); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// armJobOf writes one stored job of coll as the API answers it.
// The workspace's calendars are read only when the job excludes some.
func (s *Server) armJobOf(c echo.Context, coll *models.CollectionRow, j *models.Job) (armJob, error) {
	job, perr := parseStoredJob(j)
	var cals recurrence.Calendars
	if perr == nil && job.ExcludesCalendars() {
		var err error
		if cals, err = s.catalog.WorkspaceCalendars(c.Request().Context(), coll.WorkspaceID); err != nil {
			return armJob{}, err
		}
	}
	return armJobFrom(coll, j, job, perr, s.clock(), cals), nil
}
