package models

import (
	"context"
	"time"
)

// JobDetail is a job with the engine's count of the occurrences it has
// planned so far (what recurrence.count is counted against).
type JobDetail struct {
	Job
	ScheduledCount int64
}

// JobDetail returns the job named name in collectionID (case-insensitive)
// with its scheduled count, or ErrNotFound.
func (s *Store) JobDetail(ctx context.Context, collectionID int64, name string) (*JobDetail, error) {
	var out []JobDetail
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?)`,
		collectionID, name).Scan(&out).Error
	if err != nil {
		return nil, translate("models: job detail", err)
	}
	if len(out) == 0 {
		return nil, translate("models: job detail", ErrNotFound)
	}
	return &out[0], nil
}

// CollectionJob is a job of a collection listing with its latest history
// entry's status and start (nil when it has none).
type CollectionJob struct {
	Job
	LastStatus    *string
	LastStartTime *time.Time
}

// CollectionJobs returns up to limit jobs of a collection in name order
// (case-insensitive), those after the name after when it is not empty:
// keyset paging on jobs_collection_name_key. Each carries its latest
// history entry, found through job_history_job_start_idx.
func (s *Store) CollectionJobs(ctx context.Context, collectionID int64, after string, limit int) ([]CollectionJob, error) {
	var out []CollectionJob
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.*, lh.status AS last_status, lh.start_time AS last_start_time
		FROM jobs j
		LEFT JOIN LATERAL (
			SELECT h.status, h.start_time FROM job_history h
			WHERE h.job_id = j.id ORDER BY h.start_time DESC, h.id DESC LIMIT 1
		) lh ON true
		WHERE j.job_collection_id = ? AND lower(j.name) > lower(?)
		ORDER BY lower(j.name)
		LIMIT ?`, collectionID, after, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection jobs", err)
	}
	return out, nil
}

// HistoryBetween returns up to limit entries of jobID that started in
// [from, to), newest first (the marks of the history timeline).
func (s *Store) HistoryBetween(ctx context.Context, jobID int64, from, to time.Time, limit int) ([]HistoryEntry, error) {
	var out []HistoryEntry
	err := s.db.WithContext(ctx).
		Where("job_id = ? AND start_time >= ? AND start_time < ?", jobID, from, to).
		Order("start_time DESC, id DESC").Limit(max(limit, 1)).Find(&out).Error
	if err != nil {
		return nil, translate("models: history between", err)
	}
	return out, nil
}

// HistoryBuckets counts, per bucket of width and per status, the entries
// of jobID that started in [from, to) (the history timeline when it holds
// too many entries to draw one by one).
func (s *Store) HistoryBuckets(ctx context.Context, jobID int64, from, to time.Time, width time.Duration) ([]HistoryBucket, error) {
	var out []HistoryBucket
	err := s.db.WithContext(ctx).Raw(`
		SELECT floor(extract(epoch FROM (start_time - ?::timestamptz)) / ?)::int AS bucket, status,
		       count(*) AS count, max(lateness_ms) AS max_lateness_ms
		FROM job_history
		WHERE job_id = ? AND start_time >= ? AND start_time < ?
		GROUP BY 1, 2
		ORDER BY 1, 2`, from, width.Seconds(), jobID, from, to).Scan(&out).Error
	if err != nil {
		return nil, translate("models: history buckets", err)
	}
	return out, nil
}
