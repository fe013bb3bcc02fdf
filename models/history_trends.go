package models

import (
	"context"
	"time"
)

// TrendRun is one recent attempt of a job for its trends chart.
type TrendRun struct {
	ID         int64
	StartTime  time.Time
	EndTime    *time.Time
	Status     HistoryStatus
	LatenessMs *int64
	// LimitWaitMs is how much of LatenessMs the attempt waited for its
	// host's target limit (SPEC §16.2); nil when no limit held it.
	LimitWaitMs *int64
}

// RecentRuns returns the newest limit attempts of job jobID (Completed and
// Failed entries; Postponed ones never ran), newest first, through
// job_history_job_start_idx.
func (s *Store) RecentRuns(ctx context.Context, jobID int64, limit int) ([]TrendRun, error) {
	var out []TrendRun
	err := s.db.WithContext(ctx).Raw(`
		SELECT id, start_time, end_time, status, lateness_ms, limit_wait_ms FROM job_history
		WHERE job_id = ? AND status IN ('Completed', 'Failed')
		ORDER BY start_time DESC, id DESC LIMIT ?`, jobID, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: recent runs", err)
	}
	return out, nil
}

// SuccessCounts counts a job's attempts since a moment: all of them
// (Completed and Failed) and the Completed ones.
type SuccessCounts struct {
	Total, Succeeded int64
}

// SuccessSince returns, for each moment of since, the counts of job
// jobID's attempts that started at or after it (one query per moment, on
// job_history_job_start_idx).
func (s *Store) SuccessSince(ctx context.Context, jobID int64, since ...time.Time) ([]SuccessCounts, error) {
	out := make([]SuccessCounts, len(since))
	for i, t := range since {
		var c SuccessCounts
		err := s.db.WithContext(ctx).Raw(`
			SELECT count(*) AS total, count(*) FILTER (WHERE status = 'Completed') AS succeeded
			FROM job_history WHERE job_id = ? AND start_time >= ? AND status IN ('Completed', 'Failed')`, jobID, t).Scan(&c).Error
		if err != nil {
			return nil, translate("models: success since", err)
		}
		out[i] = c
	}
	return out, nil
}
