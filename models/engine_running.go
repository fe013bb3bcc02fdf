package models

import (
	"context"
	"time"
)

// RunningAttempt is an attempt in flight (job_attempts.status running, or
// a record: job_history.status Running; ID is the attempt's id)
// with its job and collection, for the running-now page.
type RunningAttempt struct {
	ID            int64
	JobID         int64
	JobName       string
	Collection    string
	ResourceGroup string
	Action        ActionName
	Attempt       int
	Occurrence    int64
	ExpectedTime  time.Time
	DueAt         time.Time
	// StartedAt is when the instance claimed the attempt.
	StartedAt time.Time
	// Instance holds the attempt's lease (engine.Config.InstanceID).
	Instance       string
	LeaseExpiresAt time.Time
	// RerunOf is the history entry a re-run re-runs, nil otherwise.
	RerunOf *int64
}

// MaxRunningShown caps RunningAttempts: the page shows the longest
// running first and says when there are more.
const MaxRunningShown = 500

// RunningAttempts returns up to limit attempts in flight in workspace ws,
// the longest running first (job_attempts_running_idx and
// job_history_running_idx find the running ones, whatever their number of
// finished siblings).
func (s *Store) RunningAttempts(ctx context.Context, ws string, limit int) ([]RunningAttempt, error) {
	var out []RunningAttempt
	err := s.db.WithContext(ctx).Raw(`
		SELECT a.id, a.job_id, j.name AS job_name, c.name AS collection, rg.name AS resource_group, a.action,
		       a.attempt, a.occurrence, a.expected_time, a.due_at, a.started_at, a.lease_owner AS instance,
		       a.lease_expires_at, a.rerun_of
		FROM job_attempts a
		JOIN jobs j ON j.id = a.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE a.status = 'running' AND rg.workspace_id = ?
		UNION ALL
		SELECT h.attempt_id, h.job_id, j.name, c.name, rg.name, h.action_name, h.retry_count + 1, h.repeat_count,
		       h.expected_execution_time, h.due_at, h.start_time, h.lease_owner, h.lease_expires_at, h.rerun_of
		FROM job_history h
		JOIN jobs j ON j.id = h.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE h.status = 'Running' AND rg.workspace_id = ?
		ORDER BY started_at, id
		LIMIT ?`, ws, ws, max(limit, 1)).Scan(&out).Error
	if err != nil {
		return nil, translate("models: running attempts", err)
	}
	return out, nil
}
