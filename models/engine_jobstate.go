package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// RunNow queues an extra occurrence of job id, expected at now (kept to
// the microsecond): its first MainAction attempt becomes due at once and
// the engines are notified. The job's schedule is unchanged and the run
// does not count against recurrence.count. It returns the attempt's id,
// ErrNotFound, ErrJobFinished for a completed or faulted job, and
// ErrJobNotEnabled for a disabled one.
func (s *Store) RunNow(ctx context.Context, id int64, now time.Time) (int64, error) {
	return s.RunNowWith(ctx, id, now, RunChanges{})
}

// RunChanges are the changes of one run (SPEC §16.4) as the attempt row
// keeps them: Apply, as given, is what the engine applies to the main
// action's request (jobdef.ParseRunChanges reads it); Shown, the same with
// secret header values masked, is what the run's history entries keep.
// The zero value is a run as defined.
type RunChanges struct {
	Apply json.RawMessage
	Shown json.RawMessage
}

// RunNowWith is RunNow for a run with changes ch: the attempt and its
// retries carry them.
func (s *Store) RunNowWith(ctx context.Context, id int64, now time.Time, ch RunChanges) (int64, error) {
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
		if err := tx.Raw(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				changes, changes_shown)
			VALUES (?, ?, 'MainAction', 1, ?, 'pending', ?, ?::jsonb, ?::jsonb) RETURNING id`,
			id, now, j.OccurrenceCount+1, now, jsonbOrNull(ch.Apply), jsonbOrNull(ch.Shown)).Scan(&attemptID).Error; err != nil {
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

// jsonbOrNull is raw as a jsonb parameter: nil (SQL NULL) when empty.
func jsonbOrNull(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}
