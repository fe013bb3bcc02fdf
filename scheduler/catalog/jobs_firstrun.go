package catalog

import (
	"time"

	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// firstRun returns the first run of a job the catalog writes in state at
// now with rule (its recurrence compiled for now, the job's schedule
// base): what the engine's planner (plan.Decide for a job to schedule)
// would store when it first saw the job, so that the write stores it and
// no engine has to schedule the job. It returns nil when the job is not
// enabled or the planner has no next run for it (the job ends: the
// engine decides that, with its own audit entry).
func firstRun(job *jobdef.Job, state jobdef.State, rule *recurrence.Rule, now time.Time) *time.Time {
	if state != jobdef.Enabled {
		return nil
	}
	compile := func(time.Time) (plan.Rule, error) { return rule, nil }
	d, err := plan.Decide(plan.State{Status: state, ScheduleBase: &now, NeedsSchedule: true},
		plan.Policy{Misfire: job.MisfirePolicy, Concurrency: job.Concurrency}, compile, now)
	if err != nil || d.Next == nil || d.End != "" || d.Rebase != nil {
		return nil
	}
	return d.Next
}
