package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"sked/models/notifydef"

	"gorm.io/gorm"
)

// DeadlineWatch is an occurrence of a job with deadline.succeedWithin
// (SPEC §17.2) that a claim started or skipped: the engine decides it at
// DeadlineAt (Store.DecideDeadlines).
type DeadlineWatch struct {
	// ExpectedTime is the occurrence's identity (its nominal time), DueAt
	// its due time (shifted by the job's spread window).
	ExpectedTime time.Time `json:"expected_time"`
	DueAt        time.Time `json:"due_at"`
	// DeadlineAt is DueAt + succeedWithin.
	DeadlineAt time.Time `json:"deadline_at"`
	// Skipped says the occurrence did not run (misfire policy,
	// concurrency forbid): it can only be met by a re-run.
	Skipped bool `json:"skipped"`
}

// watchDeadlines records, in the claim's transaction tx, the deadline
// watches of the plans of the locked jobs (JobPlan.Deadlines), in one
// statement; an occurrence already watched (another claim, a job changed
// right after it ran) is left as it is.
func watchDeadlines(tx *gorm.DB, jobs []EngineJob, plans []*JobPlan) error {
	type wire struct {
		JobID int64 `json:"job_id"`
		DeadlineWatch
	}
	var ws []wire
	for i, p := range plans {
		if p == nil {
			continue
		}
		for _, w := range p.Deadlines {
			ws = append(ws, wire{JobID: jobs[i].ID, DeadlineWatch: w})
		}
	}
	if len(ws) == 0 {
		return nil
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return fmt.Errorf("watch deadlines: %w", err)
	}
	err = tx.Exec(`INSERT INTO job_deadlines (job_id, expected_time, due_at, deadline_at, skipped)
		SELECT job_id, expected_time, due_at, deadline_at, skipped
		FROM json_to_recordset(?::json) AS w(job_id bigint, expected_time timestamptz, due_at timestamptz,
			deadline_at timestamptz, skipped boolean)
		ORDER BY job_id, expected_time
		ON CONFLICT (job_id, expected_time) DO NOTHING`, string(data)).Error
	if err != nil {
		return fmt.Errorf("watch %d deadlines: %w", len(ws), err)
	}
	return nil
}

// NextDeadline returns the earliest deadline moment of a watched
// occurrence not yet decided; false when there is none.
func (s *Store) NextDeadline(ctx context.Context) (time.Time, bool, error) {
	var row struct{ At *time.Time }
	err := s.db.WithContext(ctx).Raw(`SELECT min(deadline_at) AS at FROM job_deadlines WHERE decided_at IS NULL`).Scan(&row).Error
	if err != nil {
		return time.Time{}, false, translate("models: next deadline", err)
	}
	if row.At == nil {
		return time.Time{}, false, nil
	}
	return *row.At, true, nil
}

// maxDeadlineDecisions bounds the watches one DecideDeadlines decides.
const maxDeadlineDecisions = 500

// DeadlinesDecided is what DecideDeadlines did.
type DeadlinesDecided struct {
	// Met and Missed count the occurrences decided; More says that more
	// were due than one call decides.
	Met, Missed int
	More        bool
	// Events counts the notifications stored.
	Events int
}

// DecideDeadlines decides, in one transaction, the watched occurrences
// whose deadline moment is at or before now (the engine's clock): each is
// met when its main action succeeded (a history entry Completed, a
// re-run's included) by the deadline, else missed, and a missed
// occurrence of a job that is not disabled, in an enabled collection,
// raises deadlineMissed (SPEC §17.2). Rows another engine is deciding are
// skipped (SKIP LOCKED) and a decided row is never decided again, so
// each event is raised once across engines.
func (s *Store) DecideDeadlines(ctx context.Context, now time.Time) (DeadlinesDecided, error) {
	var out DeadlinesDecided
	err := s.inTx(ctx, "models: decide deadlines", func(tx *gorm.DB) error {
		var rows []struct {
			JobID        int64
			ExpectedTime time.Time
			DueAt        time.Time
			DeadlineAt   time.Time
			Skipped      bool
			MetAt        *time.Time
			Missed       bool
			Action       *string
			Status       *string
			RetryCount   *int
			Message      *string
			StartTime    *time.Time
			EndTime      *time.Time
		}
		err := tx.Raw(`
			WITH w AS (
				SELECT job_id, expected_time FROM job_deadlines
				WHERE decided_at IS NULL AND deadline_at <= ?
				ORDER BY deadline_at LIMIT ? FOR UPDATE SKIP LOCKED
			), m AS (
				SELECT d.job_id, d.expected_time,
				       (SELECT min(h.end_time) FROM job_history h
				        WHERE h.job_id = d.job_id AND h.expected_execution_time = d.expected_time
				          AND h.action_name = 'MainAction' AND h.status = 'Completed' AND h.end_time <= d.deadline_at) AS met_at,
				       j.state <> 'disabled' AND c.state = 'Enabled' AS expecting
				FROM w JOIN job_deadlines d USING (job_id, expected_time)
				JOIN jobs j ON j.id = d.job_id JOIN job_collections c ON c.id = j.job_collection_id
			), u AS (
				UPDATE job_deadlines d SET decided_at = ?, met_at = m.met_at, missed = m.met_at IS NULL AND m.expecting
				FROM m WHERE d.job_id = m.job_id AND d.expected_time = m.expected_time
				RETURNING d.job_id, d.expected_time, d.due_at, d.deadline_at, d.skipped, d.met_at, d.missed
			)
			SELECT u.*, l.action_name AS action, l.status, l.retry_count, l.message, l.start_time, l.end_time
			FROM u LEFT JOIN LATERAL (
				SELECT h.action_name, h.status, h.retry_count, h.message, h.start_time, h.end_time FROM job_history h
				WHERE u.missed AND h.job_id = u.job_id AND h.expected_execution_time = u.expected_time
				ORDER BY h.start_time DESC, h.id DESC LIMIT 1) l ON true
			ORDER BY u.deadline_at, u.job_id`,
			now.UTC(), maxDeadlineDecisions, now.UTC()).Scan(&rows).Error
		if err != nil {
			return fmt.Errorf("decide deadlines: %w", err)
		}
		out.More = len(rows) == maxDeadlineDecisions
		var evs []jobEvent
		for _, r := range rows {
			if r.MetAt != nil {
				out.Met++
				continue
			}
			if !r.Missed {
				continue
			}
			out.Missed++
			ev := jobEvent{jobID: r.JobID, typ: notifydef.DeadlineMissed, at: now,
				occurrence: &notifydef.Occurrence{ExpectedTime: r.ExpectedTime.UTC()}}
			if r.Action != nil {
				a := &notifydef.Attempt{Action: *r.Action, Status: orZero(r.Status), RetryCount: orZero(r.RetryCount),
					Message: orZero(r.Message)}
				if r.StartTime != nil {
					st := r.StartTime.UTC()
					a.StartTime = &st
				}
				if r.EndTime != nil {
					et := r.EndTime.UTC()
					a.EndTime = &et
				}
				ev.attempt = a
			} else if r.Skipped {
				ev.attempt = &notifydef.Attempt{Action: string(MainAction), Status: string(StatusPostponed),
					Message: "The occurrence did not run: it was skipped (the instances were down, the collection was disabled, or the previous run was still running)."}
			}
			evs = append(evs, ev)
		}
		n, err := enqueueJobEvents(tx, evs)
		if err != nil {
			return fmt.Errorf("decide deadlines: %w", err)
		}
		out.Events = n
		return nil
	})
	return out, err
}

// orZero returns *p, or the zero value for nil.
func orZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// SlowAttempt is an attempt still running deadline.maxDuration after it
// started, for RaiseJobSlowRun.
type SlowAttempt struct {
	AttemptID    int64
	JobID        int64
	Action       ActionName
	Attempt      int
	ExpectedTime time.Time
	Occurrence   int64
	StartedAt    time.Time
	// Now is the engine's clock.
	Now time.Time
}

// RaiseJobSlowRun raises slowRun for attempt a (SPEC §17.2), once across
// engines: only while the attempt is still running and not raised before
// (job_slow_runs' primary key), in the transaction that stores the
// notifications of the job's alert rules. It reports whether it raised it.
func (s *Store) RaiseJobSlowRun(ctx context.Context, a SlowAttempt) (bool, error) {
	raised := false
	err := s.inTx(ctx, "models: raise slowRun", func(tx *gorm.DB) error {
		// The attempt runs as its job_attempts row or, started by the
		// schedule, as its record (its history row, attempt_id).
		res := tx.Exec(`INSERT INTO job_slow_runs (attempt_id, job_id, action, expected_time, started_at, raised_at)
			SELECT id, job_id, action, expected_time, started_at, ?::timestamptz FROM job_attempts
			WHERE id = ? AND status = 'running'
			UNION ALL
			SELECT attempt_id, job_id, action_name, expected_execution_time, start_time, ?::timestamptz FROM job_history
			WHERE job_id = ? AND status = 'Running' AND attempt_id = ?
			ON CONFLICT (attempt_id) DO NOTHING`, a.Now.UTC(), a.AttemptID, a.Now.UTC(), a.JobID, a.AttemptID)
		if res.Error != nil {
			return fmt.Errorf("raise slowRun: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return nil
		}
		raised = true
		st := a.StartedAt.UTC()
		ev := jobEvent{jobID: a.JobID, typ: notifydef.SlowRun, at: a.Now,
			occurrence: &notifydef.Occurrence{ExpectedTime: a.ExpectedTime.UTC(), RepeatCount: int(a.Occurrence)},
			attempt: &notifydef.Attempt{Action: string(a.Action), Status: "Running", RetryCount: max(a.Attempt-1, 0),
				StartTime: &st}}
		if _, err := enqueueJobEvents(tx, []jobEvent{ev}); err != nil {
			return fmt.Errorf("raise slowRun: %w", err)
		}
		return nil
	})
	return raised, err
}

// DeadlineEvent is a deadlineMissed or slowRun of a job, for its page.
type DeadlineEvent struct {
	Type notifydef.EventType
	// At is when it was raised; ExpectedTime the occurrence.
	At           time.Time
	ExpectedTime time.Time
	// DeadlineAt is a deadlineMissed's deadline moment; Skipped says the
	// occurrence did not run.
	DeadlineAt time.Time
	Skipped    bool
	// Action and StartedAt are a slowRun's attempt.
	Action    ActionName
	StartedAt time.Time
}

// JobDeadlineEvents returns the newest limit deadlineMissed and slowRun
// events of job jobID, newest first.
func (s *Store) JobDeadlineEvents(ctx context.Context, jobID int64, limit int) ([]DeadlineEvent, error) {
	var rows []struct {
		Type         string
		At           time.Time
		ExpectedTime time.Time
		DeadlineAt   *time.Time
		Skipped      bool
		Action       string
		StartedAt    *time.Time
	}
	err := s.db.WithContext(ctx).Raw(`
		(SELECT 'deadlineMissed' AS type, decided_at AS at, expected_time, deadline_at, skipped, '' AS action,
		        NULL::timestamptz AS started_at
		 FROM job_deadlines WHERE job_id = ? AND missed ORDER BY expected_time DESC LIMIT ?)
		UNION ALL
		(SELECT 'slowRun', raised_at, expected_time, NULL, false, action, started_at
		 FROM job_slow_runs WHERE job_id = ? ORDER BY raised_at DESC LIMIT ?)
		ORDER BY at DESC LIMIT ?`, jobID, limit, jobID, limit, limit).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: deadline events", err)
	}
	out := make([]DeadlineEvent, len(rows))
	for i, r := range rows {
		out[i] = DeadlineEvent{Type: notifydef.EventType(r.Type), At: r.At, ExpectedTime: r.ExpectedTime,
			Skipped: r.Skipped, Action: ActionName(r.Action)}
		if r.DeadlineAt != nil {
			out[i].DeadlineAt = *r.DeadlineAt
		}
		if r.StartedAt != nil {
			out[i].StartedAt = *r.StartedAt
		}
	}
	return out, nil
}

// pruneDeadlines deletes the decided deadline watches and the slowRun
// records older than before (retention, with the history).
func pruneDeadlines(db *gorm.DB, before time.Time) error {
	if err := db.Exec(`DELETE FROM job_deadlines WHERE decided_at IS NOT NULL AND decided_at < ?`, before).Error; err != nil {
		return fmt.Errorf("prune deadline watches: %w", err)
	}
	if err := db.Exec(`DELETE FROM job_slow_runs WHERE raised_at < ?`, before).Error; err != nil {
		return fmt.Errorf("prune slow runs: %w", err)
	}
	return nil
}
