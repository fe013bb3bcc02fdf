package models

import (
	"context"
	"time"
)

// HistoryEntry is one execution attempt of a job (or one postponed
// occurrence). ActionName is MainAction or ErrorAction; Status is
// Completed, Failed or Postponed.
type HistoryEntry struct {
	ID                    int64
	JobID                 int64
	StartTime             time.Time
	EndTime               *time.Time
	ExpectedExecutionTime time.Time
	ActionName            string
	Status                string
	Message               string
	RetryCount            int
	RepeatCount           int64
	// LatenessMs is how late the attempt started after its due time, in
	// milliseconds; nil for entries not written by the engine.
	LatenessMs *int64
	// AttemptID is the attempt (the x-ms-scheduler-execution-tag sent with
	// it); nil for entries without one, such as Postponed.
	AttemptID *int64
}

// TableName tells GORM the table.
func (HistoryEntry) TableName() string { return "job_history" }

// AddHistory inserts e and sets its ID.
func (s *Store) AddHistory(ctx context.Context, e *HistoryEntry) error {
	return translate("models: add history", s.db.WithContext(ctx).Create(e).Error)
}

// History returns up to limit entries of jobID, newest first, starting after
// the entry (beforeStart, beforeID) when beforeID is not zero: keyset paging,
// so deep pages cost as little as the first.
func (s *Store) History(ctx context.Context, jobID int64, beforeStart time.Time, beforeID int64, limit int) ([]HistoryEntry, error) {
	q := s.db.WithContext(ctx).Where("job_id = ?", jobID)
	if beforeID != 0 {
		q = q.Where("(start_time, id) < (?, ?)", beforeStart, beforeID)
	}
	var out []HistoryEntry
	if err := q.Order("start_time DESC, id DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, translate("models: history", err)
	}
	return out, nil
}

// HistoryQuery selects one page of a job's history for the web UI: newest
// first, optionally only one status and one action, and paged by keyset
// (the entries strictly older than the cursor), never by OFFSET.
type HistoryQuery struct {
	JobID int64
	// Status is Completed, Failed or Postponed; empty means any.
	Status string
	// Action is MainAction or ErrorAction; empty means any.
	Action string
	// BeforeStart and BeforeID are the cursor: the page starts after the
	// entry (BeforeStart, BeforeID) in newest-first order. BeforeID 0
	// means from the newest entry.
	BeforeStart time.Time
	BeforeID    int64
	// Limit is how many entries at most; at least 1.
	Limit int
}

// FilteredHistory returns the page of history q selects. With a status it
// walks job_history_job_status_start_idx, otherwise
// job_history_job_start_idx; the action is a filter on the rows walked.
func (s *Store) FilteredHistory(ctx context.Context, q HistoryQuery) ([]HistoryEntry, error) {
	db := s.db.WithContext(ctx).Where("job_id = ?", q.JobID)
	if q.Status != "" {
		db = db.Where("status = ?", q.Status)
	}
	if q.Action != "" {
		db = db.Where("action_name = ?", q.Action)
	}
	if q.BeforeID != 0 {
		db = db.Where("(start_time, id) < (?, ?)", q.BeforeStart, q.BeforeID)
	}
	var out []HistoryEntry
	if err := db.Order("start_time DESC, id DESC").Limit(max(q.Limit, 1)).Find(&out).Error; err != nil {
		return nil, translate("models: filtered history", err)
	}
	return out, nil
}

// HistoryPage returns a job's history newest first, only entries with
// status when status is not empty: limit of them after skipping skip (the
// REST API pages with $skip).
func (s *Store) HistoryPage(ctx context.Context, jobID int64, status string, skip, limit int) ([]HistoryEntry, error) {
	q := s.db.WithContext(ctx).Where("job_id = ?", jobID)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	var out []HistoryEntry
	if err := q.Order("start_time DESC, id DESC").Offset(skip).Limit(limit).Find(&out).Error; err != nil {
		return nil, translate("models: history page", err)
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

// HistoryBucket counts the history entries of one status that started in
// one bucket of a time range: bucket i covers [from + i·width,
// from + (i+1)·width).
type HistoryBucket struct {
	Bucket        int
	Status        string
	Count         int64
	MaxLatenessMs *int64
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
