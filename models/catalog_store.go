package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// QuotaError reports a write refused by a collection's quota (SPEC §6);
// Quota names it ("maxJobCount", "maxRecurrence", "maxJobOccurrence",
// "sku") and Message says what was exceeded. It answers 409 Conflict.
type QuotaError struct {
	Quota   string
	Message string
}

func (e *QuotaError) Error() string { return e.Message }

// Is makes a QuotaError match ErrConflict.
func (e *QuotaError) Is(target error) bool { return target == ErrConflict }

// CollectionRef locates a collection by its ARM path.
type CollectionRef struct {
	WorkspaceID, ResourceGroup, Name string
}

// CollectionRow is a collection with the names of its group and workspace.
type CollectionRow struct {
	JobCollection
	WorkspaceID   string
	ResourceGroup string
}

// PutCollection creates the collection ref (and its resource group) or
// replaces the location, tags, SKU, state and quota of the one that exists,
// keeping its jobs. It reports whether it was created. Lowering the job
// quota below the jobs the collection holds is refused with a QuotaError.
func (s *Store) PutCollection(ctx context.Context, ref CollectionRef, c *JobCollection) (created bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		created, err = putCollectionTx(tx, ref, c)
		return err
	})
	return created, translate("models: put collection", err)
}

// putCollectionTx is PutCollection inside tx.
func putCollectionTx(tx *gorm.DB, ref CollectionRef, c *JobCollection) (bool, error) {
	if len(c.Tags) == 0 {
		c.Tags = json.RawMessage(`{}`)
	}
	rg, err := ensureResourceGroup(tx, ref.WorkspaceID, ref.ResourceGroup)
	if err != nil {
		return false, err
	}
	var existing JobCollection
	err = tx.Raw(`SELECT * FROM job_collections WHERE resource_group_id = ? AND lower(name) = lower(?) FOR UPDATE`,
		rg.ID, ref.Name).Scan(&existing).Error
	if err != nil {
		return false, err
	}
	c.ResourceGroupID = rg.ID
	if existing.ID == 0 {
		c.Name = ref.Name
		return true, tx.Omit("ID", "CreatedAt", "UpdatedAt").Create(c).Error
	}
	if c.MaxJobCount != nil {
		var n int64
		if err := tx.Raw(`SELECT count(*) FROM jobs WHERE job_collection_id = ?`, existing.ID).Scan(&n).Error; err != nil {
			return false, err
		}
		if n > int64(*c.MaxJobCount) {
			return false, &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
				"The collection holds %d jobs, more than the new quota maxJobCount of %d: delete jobs first.", n, *c.MaxJobCount)}
		}
	}
	c.ID, c.Name, c.CreatedAt = existing.ID, existing.Name, existing.CreatedAt
	c.UpdatedAt = time.Now().UTC()
	return false, tx.Model(&JobCollection{ID: existing.ID}).Select("Location", "Tags", "SKU", "State", "MaxJobCount",
		"MaxJobOccurrence", "MaxRecurrenceFrequency", "MaxRecurrenceInterval", "UpdatedAt").Updates(c).Error
}

// collectionRows is the head of the queries that list collections.
const collectionRows = `SELECT c.*, rg.workspace_id, rg.name AS resource_group
	FROM job_collections c JOIN resource_groups rg ON rg.id = c.resource_group_id`

// CollectionByRef returns the collection at ref (names compared
// case-insensitively), or ErrNotFound.
func (s *Store) CollectionByRef(ctx context.Context, ref CollectionRef) (*CollectionRow, error) {
	var out []CollectionRow
	err := s.db.WithContext(ctx).Raw(collectionRows+`
		WHERE rg.workspace_id = ? AND lower(rg.name) = lower(?) AND lower(c.name) = lower(?)`,
		ref.WorkspaceID, ref.ResourceGroup, ref.Name).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection", err)
	}
	if len(out) == 0 {
		return nil, translate("models: collection", ErrNotFound)
	}
	return &out[0], nil
}

// ListCollections returns the collections of workspaceID, of one resource
// group when group is not empty, ordered by group and name: limit of them
// after skipping skip.
func (s *Store) ListCollections(ctx context.Context, workspaceID, group string, skip, limit int) ([]CollectionRow, error) {
	var out []CollectionRow
	q := collectionRows + ` WHERE rg.workspace_id = ?`
	args := []any{workspaceID}
	if group != "" {
		q += ` AND lower(rg.name) = lower(?)`
		args = append(args, group)
	}
	q += ` ORDER BY lower(rg.name), lower(c.name), c.id OFFSET ? LIMIT ?`
	args = append(args, skip, limit)
	if err := s.db.WithContext(ctx).Raw(q, args...).Scan(&out).Error; err != nil {
		return nil, translate("models: list collections", err)
	}
	return out, nil
}

// DeleteCollection deletes a collection with its jobs and their history,
// or returns ErrNotFound.
func (s *Store) DeleteCollection(ctx context.Context, id int64) error {
	res := s.db.WithContext(ctx).Delete(&JobCollection{}, id)
	if res.Error != nil {
		return translate("models: delete collection", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete collection", ErrNotFound)
	}
	return nil
}

// JobWrite is a job to create or replace by SaveJob.
type JobWrite struct {
	CollectionID int64
	Name         string
	// Definition is the canonical definition without secrets.
	Definition json.RawMessage
	// Secrets are sealed into the job's row (nil or empty: none).
	Secrets jobdef.Secrets
	// State is enabled, disabled, completed or faulted; EndedAt is set
	// with the last two (now when nil).
	State   string
	EndedAt *time.Time
	// MaxJobs refuses the creation of a job beyond this many in the
	// collection with a QuotaError (checked under the collection's row
	// lock, so concurrent writers cannot overshoot). Zero means no limit.
	MaxJobs int
	// MustExist refuses to create the job (ErrNotFound instead): PATCH.
	MustExist bool
	// Now is the writer's clock: the schedule base of a job this write
	// creates, enables or changes, and the end of a job it ends (zero:
	// time.Now).
	Now time.Time
}

// SaveJob creates or replaces a job in one transaction, sealing its
// secrets, and returns the stored job and whether it was created. A
// replaced job keeps its id, counters and history.
func (s *Store) SaveJob(ctx context.Context, w JobWrite) (*Job, bool, error) {
	var out *Job
	var created bool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		out, created, err = s.saveJobTx(tx, w)
		return err
	})
	if err != nil {
		return nil, false, translate("models: save job", err)
	}
	return out, created, nil
}

// saveJobTx is SaveJob inside tx.
func (s *Store) saveJobTx(tx *gorm.DB, w JobWrite) (*Job, bool, error) {
	sealed, err := s.box.seal(w.Secrets)
	if err != nil {
		return nil, false, err
	}
	var lock []int64
	if err := tx.Raw(`SELECT id FROM job_collections WHERE id = ? FOR UPDATE`, w.CollectionID).Scan(&lock).Error; err != nil {
		return nil, false, err
	}
	if len(lock) == 0 {
		return nil, false, ErrNotFound
	}
	var existing []int64
	if err := tx.Raw(`SELECT id FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?)`,
		w.CollectionID, w.Name).Scan(&existing).Error; err != nil {
		return nil, false, err
	}
	if len(existing) == 0 {
		if w.MustExist {
			return nil, false, ErrNotFound
		}
		if w.MaxJobs > 0 {
			var n int64
			if err := tx.Raw(`SELECT count(*) FROM jobs WHERE job_collection_id = ?`, w.CollectionID).Scan(&n).Error; err != nil {
				return nil, false, err
			}
			if n >= int64(w.MaxJobs) {
				return nil, false, &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
					"The collection already holds %d jobs, its quota maxJobCount: delete a job or raise the quota.", n)}
			}
		}
	}
	now := w.now()
	state, ended := w.stateAndEnd(now)
	sched := newJobSchedule(jobdef.State(state), nil, now)
	var j Job
	err = tx.Raw(`
		INSERT INTO jobs (job_collection_id, name, definition, secrets, state, ended_at, schedule_base, needs_schedule)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
		SET definition = EXCLUDED.definition, secrets = EXCLUDED.secrets, state = EXCLUDED.state,
		    ended_at = CASE WHEN EXCLUDED.state IN ('completed', 'faulted')
		                    THEN coalesce(jobs.ended_at, EXCLUDED.ended_at) END,
		    updated_at = now(), `+jobScheduleSet("EXCLUDED.definition")+`
		RETURNING *`, w.CollectionID, w.Name, string(w.Definition), sealed, state, ended,
		sched.Base, sched.NeedsSchedule).Scan(&j).Error
	if err != nil {
		return nil, false, err
	}
	return &j, len(existing) == 0, nil
}

// JobSecrets returns the opened secrets of job id (nil when it has none).
func (s *Store) JobSecrets(ctx context.Context, id int64) (jobdef.Secrets, error) {
	var rows []struct{ Secrets []byte }
	if err := s.db.WithContext(ctx).Raw(`SELECT secrets FROM jobs WHERE id = ?`, id).Scan(&rows).Error; err != nil {
		return nil, translate("models: job secrets", err)
	}
	if len(rows) == 0 {
		return nil, translate("models: job secrets", ErrNotFound)
	}
	sec, err := s.box.open(rows[0].Secrets)
	if err != nil {
		return nil, fmt.Errorf("models: job secrets of job %d: %w", id, err)
	}
	return sec, nil
}

// ListJobs returns the jobs of a collection in name order, only those in
// state when state is not empty: limit of them after skipping skip.
func (s *Store) ListJobs(ctx context.Context, collectionID int64, state string, skip, limit int) ([]Job, error) {
	q := s.db.WithContext(ctx).Where("job_collection_id = ?", collectionID)
	if state != "" {
		q = q.Where("state = ?", state)
	}
	var out []Job
	if err := q.Order("lower(name), id").Offset(skip).Limit(limit).Find(&out).Error; err != nil {
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

// now returns w.Now, or time.Now when it is zero.
func (w JobWrite) now() time.Time {
	if w.Now.IsZero() {
		return time.Now().UTC()
	}
	return w.Now
}

// stateAndEnd returns the state to store (enabled when empty) and, for
// completed and faulted, when the job ended (EndedAt, else now).
func (w JobWrite) stateAndEnd(now time.Time) (string, *time.Time) {
	state := w.State
	if state == "" {
		state = "enabled"
	}
	if state != "completed" && state != "faulted" {
		return state, nil
	}
	if w.EndedAt != nil {
		return state, w.EndedAt
	}
	return state, &now
}
