package models

import (
	"context"
	"encoding/json"
	"time"
)

// memberOf is the condition that the workspace of resource group rg is one
// the user (the query's argument) belongs to.
const memberOf = `EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = rg.workspace_id AND m.user_id = ?)`

// UpcomingRun is a scheduled next occurrence of a job, with where the job
// lives.
type UpcomingRun struct {
	JobID         int64
	JobName       string
	Definition    json.RawMessage
	NextRunAt     time.Time
	ScheduleBase  *time.Time
	CreatedAt     time.Time
	Collection    string
	ResourceGroup string
	WorkspaceID   string
}

// UpcomingRuns returns the next scheduled occurrences across every enabled
// job, in an enabled collection, of the workspaces userID belongs to:
// soonest first, at most limit. It walks jobs_due_idx in order and stops
// after limit rows.
func (s *Store) UpcomingRuns(ctx context.Context, userID int64, limit int) ([]UpcomingRun, error) {
	var out []UpcomingRun
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.id AS job_id, j.name AS job_name, j.definition, j.next_run_at, j.schedule_base, j.created_at,
		       c.name AS collection, rg.name AS resource_group, rg.workspace_id
		FROM jobs j
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE j.state = 'enabled' AND j.next_run_at IS NOT NULL AND c.state = 'Enabled' AND `+memberOf+`
		ORDER BY j.next_run_at
		LIMIT ?`, userID, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: upcoming runs", err)
	}
	return out, nil
}

// HistoryWithJob is a history entry with the names of its job, collection,
// resource group and workspace.
type HistoryWithJob struct {
	HistoryEntry
	JobName       string
	Definition    json.RawMessage
	Collection    string
	ResourceGroup string
	WorkspaceID   string
}

// RecentFailures returns the newest Failed history entries across every job
// of the workspaces userID belongs to, at most limit. It walks
// job_history_failed_start_idx (migration 0004) in order.
func (s *Store) RecentFailures(ctx context.Context, userID int64, limit int) ([]HistoryWithJob, error) {
	var out []HistoryWithJob
	err := s.db.WithContext(ctx).Raw(`
		SELECT h.*, j.name AS job_name, j.definition, c.name AS collection, rg.name AS resource_group, rg.workspace_id
		FROM job_history h
		JOIN jobs j ON j.id = h.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE h.status = 'Failed' AND `+memberOf+`
		ORDER BY h.start_time DESC, h.id DESC
		LIMIT ?`, userID, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: recent failures", err)
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

// ExecutionBuckets counts, per bucket of width and per status, the history
// entries that started in [from, to) across every job of the workspaces
// userID belongs to (the dashboard's picture of the last 24 hours). It
// walks job_history_start_idx over the range.
func (s *Store) ExecutionBuckets(ctx context.Context, userID int64, from, to time.Time, width time.Duration) ([]HistoryBucket, error) {
	var out []HistoryBucket
	err := s.db.WithContext(ctx).Raw(`
		SELECT floor(extract(epoch FROM (h.start_time - ?::timestamptz)) / ?)::int AS bucket, h.status,
		       count(*) AS count, max(h.lateness_ms) AS max_lateness_ms
		FROM job_history h
		JOIN jobs j ON j.id = h.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE h.start_time >= ? AND h.start_time < ? AND `+memberOf+`
		GROUP BY 1, 2
		ORDER BY 1, 2`, from, width.Seconds(), from, to, userID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: execution buckets", err)
	}
	return out, nil
}
