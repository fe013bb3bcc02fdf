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
