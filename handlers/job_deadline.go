package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// jobDeadlineEvents is how many deadline events the job page lists.
const jobDeadlineEvents = 10

// deadlineView is the job page's deadline block (SPEC §17.2): the job's
// deadline and its latest deadlineMissed and slowRun events; nil when it
// has neither.
func (s *Server) deadlineView(ctx context.Context, row *models.CollectionRow, j *models.JobDetail, pj web.StoredJob, now time.Time) (*web.JobDeadlineView, error) {
	evs, err := s.store.JobDeadlineEvents(ctx, j.ID, jobDeadlineEvents)
	if err != nil {
		return nil, err
	}
	v := web.NewJobDeadlineView(pj.Job, evs, pj.Zone(), now)
	if v != nil {
		v.URL = web.JobDeadlinePath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	}
	return v, nil
}

// jobDeadline answers the job page's deadline block alone (htmx), for its
// refresh; a plain GET goes to the job page.
func (s *Server) jobDeadline(c echo.Context) error {
	if !isHTMX(c) {
		return redirect(c, localRedirectTarget(web.JobPath(c.Param("ws"), c.Param("rg"), c.Param("jc"), c.Param("job"))))
	}
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	pj, err := s.parseStoredIn(ctx, row.WorkspaceID, j.Definition)
	if err != nil {
		return err
	}
	v, err := s.deadlineView(ctx, row, j, pj, s.clock())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DeadlineFragment(v))
}
