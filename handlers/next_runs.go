package handlers

import (
	"context"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
	"sked/web"
)

// nextOccurrences returns up to n next occurrences of a stored job as the
// engine will run them (plan.Upcoming, the engine's planner: when each is
// due, its spread window applied), in the job's zone. A job that is not enabled has none. cals are the calendars of the
// job's workspace (nil is enough for a job that excludes none).
func nextOccurrences(j *models.JobDetail, job *jobdef.Job, now time.Time, n int, cals recurrence.Calendars) []time.Time {
	if job == nil {
		return nil
	}
	st := plan.State{Status: jobdef.State(j.State), ScheduleBase: j.ScheduleBase, NeedsSchedule: j.NeedsSchedule,
		NextRunAt: j.NextRunAt, ScheduledCount: j.ScheduledCount}
	compile := func(base time.Time) (plan.Rule, error) {
		return recurrence.CompileWith(job, base, recurrence.Options{Calendars: cals})
	}
	out := plan.Upcoming(st, recurrence.SpreadOf(job, j.ID), compile, now, n)
	zone := job.Location()
	for i := range out {
		out[i] = out[i].In(zone)
	}
	return out
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
