package models

import (
	"context"
	"time"
)

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
