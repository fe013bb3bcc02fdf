package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// Job is a stored job: its definition exactly as the user sent it, plus the
// columns the engine queries. State is one of enabled, disabled, completed,
// faulted; EndedAt is set exactly when the state is completed or faulted.
type Job struct {
	ID              int64
	JobCollectionID int64
	Name            string
	Definition      json.RawMessage `gorm:"type:json"`
	State           jobdef.State
	NextRunAt       *time.Time
	LastRunAt       *time.Time
	ExecutionCount  int64
	FailureCount    int64
	FaultedCount    int64
	CreatedAt       time.Time
	UpdatedAt       time.Time
	EndedAt         *time.Time
	// ScheduleBase and NeedsSchedule are the engine's: NeedsSchedule means
	// NextRunAt has not been computed yet from ScheduleBase.
	ScheduleBase  *time.Time
	NeedsSchedule bool
	// StateNote is why the job is disabled (SPEC §13.2), "" for none: only
	// a disabled job carries one. StateChangedBy and StateChangedAt are
	// who last changed its state or note through the catalog and when
	// ("" and nil until then).
	StateNote      string
	StateChangedBy string
	StateChangedAt *time.Time
}

// TableName tells GORM where jobs are read: the view jobs_with_results
// (migration 0029), a jobs row joined to its results (the counters live in
// job_results). Jobs are written with SQL on the jobs table.
func (Job) TableName() string { return "jobs_with_results" }

// JobByName returns the job named name in collectionID (case-insensitive),
// or ErrNotFound.
func (s *Store) JobByName(ctx context.Context, collectionID int64, name string) (*Job, error) {
	var j Job
	err := s.db.WithContext(ctx).
		Where("job_collection_id = ? AND lower(name) = lower(?)", collectionID, name).
		Take(&j).Error
	if err != nil {
		return nil, translate("models: job by name", err)
	}
	return &j, nil
}

// DeleteJob removes the job and its history, or returns ErrNotFound.
func (s *Store) DeleteJob(ctx context.Context, id int64) error {
	var n int64
	// Inside a transaction (the catalog's) it runs in it without a
	// savepoint: its error aborts that transaction anyway.
	err := s.db.WithContext(ctx).Session(&gorm.Session{DisableNestedTransaction: true}).Transaction(func(tx *gorm.DB) (err error) {
		n, err = deleteJobs(tx, "j.id = ?", id)
		return err
	})
	if err != nil {
		return translate("models: delete job", err)
	}
	if n == 0 {
		return translate("models: delete job", ErrNotFound)
	}
	return nil
}

// DeletedJob is a job DeleteJobNamed deleted, as it was: its name as
// stored and its definition (the audit log's "before").
type DeletedJob struct {
	ID         int64
	Name       string
	Definition json.RawMessage
}

// DeleteJobNamed deletes the job named name in collectionID (compared
// case-insensitively) with its history and returns it as it was, or
// ErrNotFound (deleteJobNamed).
func (s *Store) DeleteJobNamed(ctx context.Context, collectionID int64, name string) (*DeletedJob, error) {
	var out *DeletedJob
	// Inside a transaction (the catalog's) it runs in it without a
	// savepoint: its error aborts that transaction anyway.
	err := s.db.WithContext(ctx).Session(&gorm.Session{DisableNestedTransaction: true}).Transaction(func(tx *gorm.DB) (err error) {
		out, err = deleteJobNamed(tx, collectionID, name)
		return err
	})
	if err != nil {
		return nil, translate("models: delete job", err)
	}
	return out, nil
}

// deleteJobNamed is DeleteJobNamed in tx: deleteJobs for one job, which
// reads the job with its lock (the newest version, the one it deletes),
// refuses to delete an upstream of another job (a *ConflictError, as
// deleteJobs does), and takes it out of its collection's counts with
// addJobCount rather than a recount.
func deleteJobNamed(tx *gorm.DB, collectionID int64, name string) (*DeletedJob, error) {
	var rows []DeletedJob
	if err := tx.Raw(`SELECT id, name, definition FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?) FOR UPDATE`,
		collectionID, name).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("delete job: %w", err)
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	if err := refuseDeletingUpstreams(tx, []int64{rows[0].ID}); err != nil { // triggers.go
		return nil, err
	}
	var states []jobdef.State
	err := tx.Raw(deleteJobsSQL(`SELECT state FROM d`), []int64{rows[0].ID}).Scan(&states).Error
	if err != nil {
		return nil, fmt.Errorf("delete job: %w", err)
	}
	if len(states) == 0 {
		return nil, fmt.Errorf("delete job %d: locked but not deleted", rows[0].ID)
	}
	_, ok, err := addJobCount(tx, collectionID, states[0], "")
	if err == nil && !ok {
		err = refreshJobCounts(tx, collectionID)
	}
	if err != nil {
		return nil, err
	}
	return &rows[0], nil
}

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
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM jobs_with_results WHERE job_collection_id = ? AND lower(name) = lower(?)`,
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
	LastStatus    *HistoryStatus
	LastStartTime *time.Time
}

// CollectionJobs returns up to limit jobs of a collection in name order
// (case-insensitive), those after the name after when it is not empty:
// keyset paging on jobs_collection_name_key. Each carries its last result
// (the status and start of its newest history entry, job_results).
// It is a read model for the collection page.
func (s *Store) CollectionJobs(ctx context.Context, collectionID int64, after string, limit int) ([]CollectionJob, error) {
	var out []CollectionJob
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.*, j.last_status_at AS last_start_time
		FROM jobs_with_results j
		WHERE j.job_collection_id = ? AND lower(j.name) > lower(?)
		ORDER BY lower(j.name)
		LIMIT ?`, collectionID, after, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection jobs", err)
	}
	return out, nil
}

// ListJobsParams selects a page of ListJobs.
type ListJobsParams struct {
	CollectionID int64
	// State, when not empty, keeps only the jobs in this state.
	State jobdef.State
	// Skip jobs are skipped, then at most Limit returned.
	Skip, Limit int
}

// ListJobs returns the jobs of collection p.CollectionID in name order,
// only those in p.State when it is not empty: p.Limit of them after
// skipping p.Skip.
func (s *Store) ListJobs(ctx context.Context, p ListJobsParams) ([]Job, error) {
	q := s.db.WithContext(ctx).Where("job_collection_id = ?", p.CollectionID)
	if p.State != "" {
		q = q.Where("state = ?", p.State)
	}
	var out []Job
	if err := q.Order("lower(name), id").Offset(p.Skip).Limit(p.Limit).Find(&out).Error; err != nil {
		return nil, translate("models: list jobs", err)
	}
	return out, nil
}

// CountJobs returns how many jobs a collection holds.
func (s *Store) CountJobs(ctx context.Context, collectionID int64) (int64, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&Job{}).Where("job_collection_id = ?", collectionID).Count(&n).Error; err != nil {
		return 0, translate("models: count jobs", err)
	}
	return n, nil
}

// CountJobsUpTo returns how many jobs a collection holds, counting no
// further than limit: a collection never holds more jobs than its quota
// (at most 1,000), so a page can show its quota use without counting a
// large collection whole.
func (s *Store) CountJobsUpTo(ctx context.Context, collectionID int64, limit int) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM (SELECT 1 FROM jobs WHERE job_collection_id = ? LIMIT ?) j`,
		collectionID, max(limit, 0)).Scan(&n).Error
	if err != nil {
		return 0, translate("models: count jobs", err)
	}
	return n, nil
}
