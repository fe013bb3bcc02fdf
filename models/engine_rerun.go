package models

import (
	"context"
	"fmt"
	"sked/models/jobdef"
	"time"

	"gorm.io/gorm"
)

// Rerun queues a new run of the occurrence of history entry historyID of
// job jobID, asked for by by at now: a pending MainAction attempt of the
// same occurrence (same expected time, so the same Idempotency-Key and
// repeatCount), numbered after the occurrence's last attempt, due at
// once, that gets the whole retry policy again (and the error action
// after it, as an occurrence does). Its history entries carry rerun_of
// and rerun_by. It returns the attempt id.
//
// Only a failed occurrence may be re-run: the entry must be Failed, no
// MainAction attempt of its occurrence may have succeeded, and nothing of
// it may still be pending or running; a refusal is a ConflictError saying
// which. Errors: ErrNotFound (no such job or entry), ErrJobFinished,
// ErrJobNotEnabled (a disabled job runs nothing).
func (s *Store) Rerun(ctx context.Context, jobID, historyID int64, by string, now time.Time) (int64, error) {
	now = now.Truncate(time.Microsecond)
	var attemptID int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var states []string
		if err := tx.Raw(`SELECT state FROM jobs WHERE id = ? FOR UPDATE`, jobID).Scan(&states).Error; err != nil {
			return err
		}
		if len(states) == 0 {
			return ErrNotFound
		}
		if err := rerunnableJob(jobdef.State(states[0])); err != nil {
			return err
		}
		var e HistoryEntry
		if err := tx.Table("job_history h").Where("id = ? AND job_id = ? AND "+finishedEntry, historyID, jobID).Take(&e).Error; err != nil {
			return err
		}
		var occ struct {
			Succeeded int64
			Open      int64
			LastTry   int
		}
		// The occurrence's open attempts are in job_attempts, its finished
		// ones in the history (an entry per attempt).
		if err := tx.Raw(`SELECT
				(SELECT count(*) FROM job_history
				 WHERE job_id = o.job AND expected_execution_time = o.at AND action_name = 'MainAction'
				   AND status = 'Completed' AND attempt_id IS NOT NULL) AS succeeded,
				(SELECT count(*) FROM job_attempts WHERE job_id = o.job AND expected_time = o.at)
				+ (SELECT count(*) FROM job_history
				   WHERE job_id = o.job AND expected_execution_time = o.at AND status = 'Running') AS open,
				coalesce(`+lastAttemptOf("o.job", "o.at", "'MainAction'")+`, 0) AS last_try
			FROM (SELECT ?::bigint AS job, ?::timestamptz AS at) o`,
			jobID, e.ExpectedExecutionTime).Scan(&occ).Error; err != nil {
			return err
		}
		if err := rerunnableEntry(&e, occ.Succeeded > 0, occ.Open > 0); err != nil {
			return err
		}
		next := occ.LastTry + 1
		if err := tx.Raw(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				attempt_base, rerun_of, rerun_by)
			VALUES (?, ?, 'MainAction', ?, ?, 'pending', ?, ?, ?, ?) RETURNING id`,
			jobID, e.ExpectedExecutionTime, next, e.RepeatCount, now, next, historyID, by).Scan(&attemptID).Error; err != nil {
			return err
		}
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return 0, translate("models: re-run", err)
	}
	return attemptID, nil
}

// rerunnableJob refuses a re-run of a job in state st: only an enabled
// job runs anything.
func rerunnableJob(st jobdef.State) error {
	switch {
	case st.Final():
		return ErrJobFinished
	case st != jobdef.Enabled:
		return ErrJobNotEnabled
	}
	return nil
}

// rerunnableEntry refuses a re-run of entry e whose occurrence succeeded
// (a MainAction attempt did) or is still open, or that is not Failed.
func rerunnableEntry(e *HistoryEntry, succeeded, open bool) error {
	occ := fmt.Sprintf("occurrence #%d", e.RepeatCount)
	switch {
	case e.Status == StatusPostponed:
		return &ConflictError{Message: fmt.Sprintf("Entry %d is a postponed occurrence that never ran: there is no failed attempt to re-run (use Run now for an extra run).", e.ID)}
	case e.Status != StatusFailed:
		return &ConflictError{Message: fmt.Sprintf("Entry %d succeeded: only a failed occurrence can be re-run (use Run now for an extra run).", e.ID)}
	case succeeded:
		return &ConflictError{Message: fmt.Sprintf("The %s already succeeded (a later attempt did): only a failed occurrence can be re-run.", occ)}
	case open:
		return &ConflictError{Message: fmt.Sprintf("The %s is still running or waiting for a retry: re-run it once it has ended.", occ)}
	}
	return nil
}
