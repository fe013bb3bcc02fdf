package handlers

import (
	"context"
	"time"

	"sked/models"
	"sked/web"
)

// jobDeadlineEvents is how many deadline events the job page lists.
const jobDeadlineEvents = 10

// deadlineView is the job page's deadline block (SPEC §17.2): the job's
// deadline and its latest deadlineMissed and slowRun events; nil when it
// has neither.
func (s *Server) deadlineView(ctx context.Context, j *models.JobDetail, pj web.StoredJob, now time.Time) (*web.JobDeadlineView, error) {
	evs, err := s.store.JobDeadlineEvents(ctx, j.ID, jobDeadlineEvents)
	if err != nil {
		return nil, err
	}
	return web.NewJobDeadlineView(pj.Job, evs, pj.Zone(), now), nil
}
