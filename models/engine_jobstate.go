package models

import (
	"context"
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
		switch j.State {
		case "":
			return ErrNotFound
		case "completed", "faulted":
			return ErrJobFinished
		case "disabled":
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
// computed by an engine at once); disabling clears its next run and drops its pending retries and
// error actions, while an attempt already running finishes and is
// recorded. Enabling an enabled job or disabling a disabled one changes
// nothing. It returns ErrNotFound, or ErrJobFinished for a completed or
// faulted job.
func (s *Store) SetJobEnabled(ctx context.Context, id int64, enabled bool, now time.Time) error {
	state := "disabled"
	if enabled {
		state = "enabled"
	}
	var states []string
	err := s.db.WithContext(ctx).Raw(`UPDATE jobs SET state = ?, updated_at = now(),
			schedule_base = CASE WHEN ? = 'enabled' THEN ?::timestamptz ELSE schedule_base END
		WHERE id = ? AND state IN ('enabled', 'disabled') AND state <> ? RETURNING state`, state, state, now, id, state).Scan(&states).Error
	if err != nil {
		return translate("models: set job state", err)
	}
	if len(states) == 1 {
		return nil
	}
	var cur []string
	if err := s.db.WithContext(ctx).Raw(`SELECT state FROM jobs WHERE id = ?`, id).Scan(&cur).Error; err != nil {
		return translate("models: set job state", err)
	}
	switch {
	case len(cur) == 0:
		return translate("models: set job state", ErrNotFound)
	case cur[0] == "completed" || cur[0] == "faulted":
		return translate("models: set job state", ErrJobFinished)
	}
	return nil
}

// SetCollectionState sets the state (Enabled, Disabled or Suspended) of
// collection id. Jobs of a collection that is not Enabled do not run;
// enabling it wakes the engines. It returns ErrNotFound for an unknown
// collection.
func (s *Store) SetCollectionState(ctx context.Context, id int64, state string) error {
	res := s.db.WithContext(ctx).Exec(`UPDATE job_collections SET state = ?, updated_at = now() WHERE id = ?`, state, id)
	if res.Error != nil {
		return translate("models: set collection state", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: set collection state", ErrNotFound)
	}
	return nil
}
