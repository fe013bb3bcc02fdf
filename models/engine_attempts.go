package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ReleaseAttempts gives back the running attempts ids that owner still
// holds (a graceful shutdown interrupted them): they become pending again,
// due at now, with the same attempt number, so that another engine runs
// them at once; no history entry or counter is written for the
// interrupted run. The engines are notified. It returns how many were
// released.
func (s *Store) ReleaseAttempts(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var n int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// A released attempt loses its target limit's tag and wait: the
		// next claim holds it again if its host still has a limit.
		res := tx.Exec(`UPDATE job_attempts SET status = 'pending', due_at = ?, lease_owner = NULL, lease_expires_at = NULL,
				started_at = NULL, target_workspace = NULL, target_host = NULL, limit_held_at = NULL, limit_wait_ms = NULL
			WHERE id IN ? AND status = 'running' AND lease_owner = ?`, now, ids, owner)
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		// A record (a running history row) is not an entry yet: it
		// becomes a pending attempt with the same id and number.
		var moved int64
		err := tx.Raw(`WITH d AS (
				DELETE FROM job_history WHERE status = 'Running' AND lease_owner = ? AND attempt_id IN ?
				RETURNING attempt_id, job_id, expected_execution_time, action_name, retry_count, repeat_count
			), i AS (
				INSERT INTO job_attempts (id, job_id, expected_time, action, attempt, occurrence, status, due_at)
				OVERRIDING SYSTEM VALUE
				SELECT attempt_id, job_id, expected_execution_time, action_name, retry_count + 1, repeat_count, 'pending', ?
				FROM d
				ON CONFLICT DO NOTHING
				RETURNING 1
			)
			SELECT count(*) FROM i`, owner, ids, now).Scan(&moved).Error
		if err != nil {
			return err
		}
		n += moved
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return 0, translate("models: release attempts", err)
	}
	return n, nil
}

// Attempt is an open attempt (pending or running): a row of job_attempts,
// or a record running (a job_history row with status Running, ID its
// attempt_id). A finished attempt is its history entry (AttemptID).
type Attempt struct {
	ID             int64
	JobID          int64
	ExpectedTime   time.Time
	Action         ActionName
	Attempt        int
	Occurrence     int64
	Status         AttemptStatus
	DueAt          time.Time
	LeaseOwner     *string
	LeaseExpiresAt *time.Time
	StartedAt      *time.Time
}

// Attempts returns the open attempts of job id (records running
// included) in the order they were made.
func (s *Store) Attempts(ctx context.Context, jobID int64) ([]Attempt, error) {
	var out []Attempt
	err := s.db.WithContext(ctx).Raw(`SELECT id, job_id, expected_time, action, attempt, occurrence, status, due_at,
		lease_owner, lease_expires_at, started_at
		FROM job_attempts WHERE job_id = ?
		UNION ALL
		SELECT attempt_id, job_id, expected_execution_time, action_name, retry_count + 1, repeat_count, 'running', due_at,
		       lease_owner, lease_expires_at, start_time
		FROM job_history WHERE job_id = ? AND status = 'Running'
		ORDER BY id`, jobID, jobID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: attempts", err)
	}
	return out, nil
}

// JobByID returns job id, or ErrNotFound.
func (s *Store) JobByID(ctx context.Context, id int64) (*Job, error) {
	var j Job
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&j).Error; err != nil {
		return nil, translate("models: job by id", err)
	}
	return &j, nil
}
