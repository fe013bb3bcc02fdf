package models

import (
	"context"
	"fmt"
	"sked/models/jobdef"
	"time"

	"gorm.io/gorm"
)

// RunNow queues an extra occurrence of job id, expected at now (kept to
// the microsecond): its first MainAction attempt becomes due at once and
// the engines are notified. The job's schedule is unchanged and the run
// does not count against recurrence.count. It returns the attempt's id,
// ErrNotFound, ErrJobFinished for a completed or faulted job, and
// ErrJobNotEnabled for a disabled one.
func (s *Store) RunNow(ctx context.Context, id int64, now time.Time) (int64, error) {
	now = now.Truncate(time.Microsecond)
	var attemptID int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var j struct {
			State           string
			OccurrenceCount int64
		}
		if err := tx.Raw(`SELECT state, occurrence_count FROM jobs WHERE id = ? FOR UPDATE`, id).Scan(&j).Error; err != nil {
			return err
		}
		switch st := jobdef.State(j.State); {
		case st == "":
			return ErrNotFound
		case st.Final():
			return ErrJobFinished
		case st == jobdef.Disabled:
			return ErrJobNotEnabled
		}
		if err := tx.Raw(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at)
			VALUES (?, ?, 'MainAction', 1, ?, 'pending', ?) RETURNING id`,
			id, now, j.OccurrenceCount+1, now).Scan(&attemptID).Error; err != nil {
			return err
		}
		if err := tx.Exec(`UPDATE jobs SET occurrence_count = occurrence_count + 1 WHERE id = ?`, id).Error; err != nil {
			return err
		}
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return 0, translate("models: run job now", err)
	}
	return attemptID, nil
}

// SetJobEnabled enables or disables job id. Enabling a disabled job
// schedules it from now (the schedule base; its next occurrence is
// computed by an engine at once); disabling clears its next run and drops
// its pending retries and error actions, while an attempt already running
// finishes and is recorded. Enabling an enabled job or disabling a
// disabled one changes nothing. It returns ErrNotFound, or ErrJobFinished
// for a completed or faulted job. It is SetJobState without a note or a
// writer's name (the engine's own calls).
func (s *Store) SetJobEnabled(ctx context.Context, id int64, enabled bool, now time.Time) error {
	_, err := s.SetJobState(ctx, id, JobStateWrite{Enabled: enabled, Now: now, KeepNote: true})
	return err
}

// endJob ends job id in state (jobdef.Completed or jobdef.Faulted) at now:
// it has no occurrence left. The engine's entry in the audit log is
// written in the same transaction.
func endJob(tx *gorm.DB, id int64, state jobdef.State, now time.Time) error {
	err := tx.Exec(`UPDATE jobs SET state = ?, ended_at = ?, next_run_at = NULL, needs_schedule = false WHERE id = ?`,
		state, now, id).Error
	if err != nil {
		return fmt.Errorf("end job %d: %w", id, err)
	}
	if err := refreshJobCountsOf(tx, []int64{id}); err != nil {
		return err
	}
	return insertEngineAudit(tx, id, engineEndAction(state), now)
}

// engineEndAction is the audit action of the engine ending a job in
// state.
func engineEndAction(state jobdef.State) string {
	if state == jobdef.Faulted {
		return AuditJobFault
	}
	return AuditJobComplete
}

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
