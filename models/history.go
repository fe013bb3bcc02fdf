package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
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
	ActionName            ActionName
	Status                HistoryStatus
	Message               string
	RetryCount            int
	RepeatCount           int64
	// LatenessMs is how late the attempt started after its due time, in
	// milliseconds; nil for entries not written by the engine.
	LatenessMs *int64
	// LimitWaitMs is how long the attempt waited for its host's target
	// limit, in milliseconds (part of its lateness); nil when no limit
	// held it.
	LimitWaitMs *int64
	// AttemptID is the attempt (the x-ms-scheduler-execution-tag sent with
	// it); nil for entries without one, such as Postponed.
	AttemptID *int64
	// RerunOf is the entry whose occurrence this attempt re-runs and
	// RerunBy who asked for it; nil for attempts not made by a re-run.
	RerunOf *int64
	RerunBy *string
	// Changes are the changes of a run with changes (SPEC §16.4), in the
	// wire shape of jobdef.ParseRunChanges with secret header values
	// masked; nil for a run as defined.
	Changes json.RawMessage `gorm:"type:jsonb"`
	// BackfillID is the backfill that ran this attempt's occurrence (SPEC
	// §16.3); nil otherwise.
	BackfillID *int64
}

// TableName tells GORM the table.
func (HistoryEntry) TableName() string { return "job_history" }

// AddHistory inserts e and sets its ID.
func (s *Store) AddHistory(ctx context.Context, e *HistoryEntry) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(e).Error; err != nil {
			return err
		}
		return rollHistoryEntry(tx, e)
	})
	return translate("models: add history", err)
}

// History returns up to q.Limit entries of q.JobID, newest first, starting
// after the entry (q.BeforeStart, q.BeforeID) when q.BeforeID is not zero:
// keyset paging, so deep pages cost as little as the first. q.Status and
// q.Action narrow it as they narrow FilteredHistory.
func (s *Store) History(ctx context.Context, q HistoryQuery) ([]HistoryEntry, error) {
	var out []HistoryEntry
	if err := s.historyQuery(ctx, q).Find(&out).Error; err != nil {
		return nil, translate("models: history", err)
	}
	return out, nil
}

// HistoryQuery selects one page of a job's history for FilteredHistory
// (the web UI) and History: newest first, optionally only one status and
// one action, and paged by keyset (the entries strictly older than the
// cursor), never by OFFSET.
type HistoryQuery struct {
	JobID int64
	// Status is Completed, Failed or Postponed; empty means any.
	Status HistoryStatus
	// Action is MainAction or ErrorAction; empty means any.
	Action ActionName
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
	var out []HistoryEntry
	if err := s.historyQuery(ctx, q).Find(&out).Error; err != nil {
		return nil, translate("models: filtered history", err)
	}
	return out, nil
}

// historyQuery is the query of History and FilteredHistory.
func (s *Store) historyQuery(ctx context.Context, q HistoryQuery) *gorm.DB {
	db := s.db.WithContext(ctx).Table("job_history h").Where("job_id = ? AND "+finishedEntry, q.JobID)
	if q.Status != "" {
		db = db.Where("status = ?", q.Status)
	}
	if q.Action != "" {
		db = db.Where("action_name = ?", q.Action)
	}
	if q.BeforeID != 0 {
		db = db.Where("(start_time, id) < (?, ?)", q.BeforeStart, q.BeforeID)
	}
	return db.Order("start_time DESC, id DESC").Limit(max(q.Limit, 1))
}

// HistoryPageParams selects a page of HistoryPage.
type HistoryPageParams struct {
	JobID int64
	// Status, when not empty, keeps only the entries with this status.
	Status HistoryStatus
	// Skip entries are skipped, then at most Limit returned.
	Skip, Limit int
}

// HistoryPage returns a job's history newest first, only entries with
// p.Status when it is not empty: p.Limit of them after skipping p.Skip (the
// REST API pages with $skip).
func (s *Store) HistoryPage(ctx context.Context, p HistoryPageParams) ([]HistoryEntry, error) {
	q := s.db.WithContext(ctx).Table("job_history h").Where("job_id = ? AND "+finishedEntry, p.JobID)
	if p.Status != "" {
		q = q.Where("status = ?", p.Status)
	}
	var out []HistoryEntry
	if err := q.Order("start_time DESC, id DESC").Offset(p.Skip).Limit(p.Limit).Find(&out).Error; err != nil {
		return nil, translate("models: history page", err)
	}
	return out, nil
}

// HistoryBetweenParams selects the entries of HistoryBetween: those of JobID
// that started in [From, To), at most Limit (at least 1).
type HistoryBetweenParams struct {
	JobID    int64
	From, To time.Time
	Limit    int
}

// HistoryBetween returns up to p.Limit entries of p.JobID that started in
// [p.From, p.To), newest first (the marks of the history timeline).
func (s *Store) HistoryBetween(ctx context.Context, p HistoryBetweenParams) ([]HistoryEntry, error) {
	var out []HistoryEntry
	err := s.db.WithContext(ctx).Table("job_history h").
		Where("job_id = ? AND start_time >= ? AND start_time < ? AND "+finishedEntry, p.JobID, p.From, p.To).
		Order("start_time DESC, id DESC").Limit(max(p.Limit, 1)).Find(&out).Error
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
	Status        HistoryStatus
	Count         int64
	MaxLatenessMs *int64
}

// HistoryBucketsParams selects the entries of HistoryBuckets: those of
// JobID that started in [From, To), counted per bucket of Width.
type HistoryBucketsParams struct {
	JobID    int64
	From, To time.Time
	Width    time.Duration
}

// HistoryBuckets counts, per bucket of p.Width and per status, the entries
// of p.JobID that started in [p.From, p.To) (the history timeline when it
// holds too many entries to draw one by one).
func (s *Store) HistoryBuckets(ctx context.Context, p HistoryBucketsParams) ([]HistoryBucket, error) {
	var out []HistoryBucket
	err := s.db.WithContext(ctx).Raw(`
		SELECT floor(extract(epoch FROM (start_time - ?::timestamptz)) / ?)::int AS bucket, status,
		       count(*) AS count, max(lateness_ms) AS max_lateness_ms
		FROM job_history h
		WHERE job_id = ? AND start_time >= ? AND start_time < ? AND `+finishedEntry+`
		GROUP BY 1, 2
		ORDER BY 1, 2`, p.From, p.Width.Seconds(), p.JobID, p.From, p.To).Scan(&out).Error
	if err != nil {
		return nil, translate("models: history buckets", err)
	}
	return out, nil
}
