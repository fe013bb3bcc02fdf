package models

// The engine's columns of a job as its writers leave them (SaveJob,
// SaveJobs and imports through upsertJobs; SetJobState and SetJobsState):
// the schedule base, the next run, whether an engine must still compute
// it, and the count of scheduled occurrences.

import (
	"time"

	"sked/models/jobdef"
)

// JobSchedule is what a write that creates a job stores in the engine's
// columns of jobs (see jobScheduleSet for a write that replaces one).
type JobSchedule struct {
	// Base is the schedule base: the writer's now for an enabled job, nil
	// for another (enabling it sets one).
	Base *time.Time
	// NeedsSchedule says an engine must compute the next run from Base:
	// an enabled job without NextRunAt.
	NeedsSchedule bool
	// NextRunAt is the next run the writer supplies (nil: the engine
	// computes it); nil for a job that is not enabled.
	NextRunAt *time.Time
}

// newJobSchedule returns the engine columns of a job written in state with
// the next run next (nil: an engine computes it) at the writer's now: the
// row inserted, and (as excluded.*) what jobScheduleSet reads.
func newJobSchedule(state jobdef.State, next *time.Time, now time.Time) JobSchedule {
	if state != "" && state != jobdef.Enabled {
		return JobSchedule{}
	}
	return JobSchedule{Base: &now, NeedsSchedule: next == nil, NextRunAt: next}
}

// jobScheduleSet is the rule for the engine's columns of a job whose state
// or definition a writer replaces (SPEC §2 start-time table, §4 states), as
// the SET list of an UPDATE of jobs (or of INSERT … ON CONFLICT DO UPDATE)
// where jobs.* is the row before the write and excluded.state,
// excluded.schedule_base and excluded.next_run_at are the new state and
// the newJobSchedule of the write; newDefinition is the SQL expression of
// the new definition:
//
//   - a job that is not enabled has no next run and nothing to schedule;
//   - a job enabled now, or enabled with a new definition, is scheduled
//     from the writer's now (its schedule base; the writer's next run when
//     it supplies one and the job's count of scheduled occurrences starts
//     from zero, as the writer planned it, else an engine computes it);
//   - a new definition restarts the count of scheduled occurrences
//     (recurrence.count counts from the definition on);
//   - an enabled job rewritten unchanged keeps its schedule.
//
// It names no clock: every time comes from the writer (the database's now()
// decides nothing).
func jobScheduleSet(newDefinition string) string {
	changed := `jobs.definition::text IS DISTINCT FROM ` + newDefinition + `::text`
	resched := `(excluded.state = 'enabled' AND (jobs.state <> 'enabled' OR ` + changed + `))`
	// The writer's next run was planned with no occurrence scheduled yet:
	// it holds when the count restarts or never started.
	fresh := `(` + changed + ` OR jobs.scheduled_count = 0)`
	next := `CASE WHEN ` + fresh + ` THEN excluded.next_run_at END`
	return `schedule_base = CASE WHEN ` + resched + ` THEN excluded.schedule_base ELSE jobs.schedule_base END,
		scheduled_count = CASE WHEN ` + changed + ` THEN 0 ELSE jobs.scheduled_count END,
		next_run_at = CASE WHEN excluded.state <> 'enabled' THEN NULL
		                   WHEN ` + resched + ` THEN ` + next + ` ELSE jobs.next_run_at END,
		needs_schedule = CASE WHEN excluded.state <> 'enabled' THEN false
		                      WHEN ` + resched + ` THEN (` + next + `) IS NULL ELSE jobs.needs_schedule END`
}
