package models

import (
	"context"
	"encoding/json"
	"sked/models/jobdef"
	"time"
)

// Job is a stored job: its definition exactly as the user sent it, plus the
// columns the engine queries. State is one of enabled, disabled, completed,
// faulted; EndedAt is set exactly when the state is completed or faulted.
type Job struct {
	ID              int64
	JobCollectionID int64
	Name            string
	Definition      json.RawMessage `gorm:"type:json"`
	State           string
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
}

// TableName tells GORM the table.
func (Job) TableName() string { return "jobs" }

// PutJob creates the job j.Name in its collection or replaces the one that
// exists under that name (case-insensitive), keeping its id, counters and
// creation time. It reports whether the job was created. An empty State
// means enabled.
func (s *Store) PutJob(ctx context.Context, j *Job) (created bool, err error) {
	if j.State == "" {
		j.State = "enabled"
	}
	now := time.Now().UTC()
	var row struct {
		ID        int64
		CreatedAt time.Time
		Inserted  bool
	}
	sched := newJobSchedule(jobdef.State(j.State), j.NextRunAt, now)
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, ended_at, created_at, updated_at,
			schedule_base, needs_schedule)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
		SET definition = EXCLUDED.definition, state = EXCLUDED.state,
		    ended_at = EXCLUDED.ended_at, updated_at = EXCLUDED.updated_at, `+jobScheduleSet("EXCLUDED.definition")+`
		RETURNING id, created_at, (xmax = 0) AS inserted`,
		j.JobCollectionID, j.Name, string(j.Definition), j.State, sched.NextRunAt, j.EndedAt, now, now,
		sched.Base, sched.NeedsSchedule).
		Scan(&row).Error
	if err != nil {
		return false, translate("models: put job", err)
	}
	j.ID, j.CreatedAt, j.UpdatedAt = row.ID, row.CreatedAt, now
	return row.Inserted, nil
}

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
	res := s.db.WithContext(ctx).Delete(&Job{}, id)
	if res.Error != nil {
		return translate("models: delete job", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete job", ErrNotFound)
	}
	return nil
}
