package models

// The dashboard's read model: queries that join jobs, job_history,
// job_collections, resource_groups and memberships for one page. The
// tables' own queries are in their files (jobs.go, history.go, …).

import (
	"context"
	"encoding/json"
	"time"
)

// seesEverything reports whether userID is a member of every workspace:
// then the dashboard's queries need no membership condition and walk their
// indexes in order (the usual single-workspace installation). Otherwise
// they start from the user's own collections, so that their cost follows
// what the user may see rather than the whole database.
func (s *Store) seesEverything(ctx context.Context, userID int64) (bool, error) {
	var all bool
	err := s.db.WithContext(ctx).Raw(`SELECT NOT EXISTS (SELECT 1 FROM workspaces w
		WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = w.id AND m.user_id = ?))`, userID).Scan(&all).Error
	return all, err
}

// memberOf is the condition that the workspace of resource group rg is one
// the user (the query's argument) belongs to.
const memberOf = `EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = rg.workspace_id AND m.user_id = ?)`

// memberIn is memberOf for userID, narrowed to the workspace ws when it is
// set ("" is every workspace of the user), and its arguments.
func memberIn(userID int64, ws string) (string, []any) {
	if ws == "" {
		return memberOf, []any{userID}
	}
	return memberOf + ` AND rg.workspace_id = ?`, []any{userID, ws}
}

// membershipsIn is the condition on memberships m that they are userID's,
// only of the workspace ws when it is set, and its arguments.
func membershipsIn(userID int64, ws string) (string, []any) {
	if ws == "" {
		return `m.user_id = ?`, []any{userID}
	}
	return `m.user_id = ? AND m.workspace_id = ?`, []any{userID, ws}
}

// args joins query arguments.
func args(parts ...any) []any {
	var out []any
	for _, p := range parts {
		if list, ok := p.([]any); ok {
			out = append(out, list...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

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

// dashboardWalk is how many of the soonest due jobs, or of the newest
// failures, the dashboard inspects in index order for a user who does not
// see every workspace before it looks at the user's own jobs one by one.
const dashboardWalk = 2000

// UpcomingRuns returns the next scheduled occurrences across every enabled
// job, in an enabled collection, of the workspaces userID belongs to:
// soonest first, at most limit. It walks jobs_due_idx in order (at most
// dashboardWalk rows); when that does not find limit of the user's jobs
// (they are in other workspaces, or in disabled collections), it takes the
// soonest of each of the user's enabled collections instead
// (jobs_collection_due_idx, migration 0022), a cost that follows what the
// user may see.
// It is a read model for the dashboard.
func (s *Store) UpcomingRuns(ctx context.Context, userID int64, limit int) ([]UpcomingRun, error) {
	return s.UpcomingRunsIn(ctx, userID, "", limit)
}

// UpcomingRunsIn is UpcomingRuns in the workspace ws of userID's ("" for
// all of them); the caller has checked that userID is a member of ws.
func (s *Store) UpcomingRunsIn(ctx context.Context, userID int64, ws string, limit int) ([]UpcomingRun, error) {
	all, err := s.seesEverything(ctx, userID)
	if err != nil {
		return nil, translate("models: upcoming runs", err)
	}
	all = all && ws == ""
	member, memberArgs := memberIn(userID, ws)
	mine, mineArgs := membershipsIn(userID, ws)
	const cols = `j.id AS job_id, j.name AS job_name, j.definition, j.next_run_at, j.schedule_base, j.created_at,
		       c.name AS collection, rg.name AS resource_group, rg.workspace_id`
	limit = max(limit, 1)
	var out []UpcomingRun
	if all {
		member, memberArgs = "true", nil
	}
	err = s.db.WithContext(ctx).Raw(`
		SELECT `+cols+`
		FROM (SELECT * FROM jobs WHERE state = 'enabled' AND next_run_at IS NOT NULL ORDER BY next_run_at LIMIT ?) j
		JOIN job_collections c ON c.id = j.job_collection_id AND c.state = 'Enabled'
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE `+member+`
		ORDER BY j.next_run_at
		LIMIT ?`, args(dashboardWalk, memberArgs, limit)...).Scan(&out).Error
	if err != nil || len(out) == limit {
		return out, translate("models: upcoming runs", err)
	}
	if all {
		mine, mineArgs = "m.user_id = ?", []any{userID}
	}
	out = nil
	err = s.db.WithContext(ctx).Raw(`
		SELECT `+cols+`
		FROM memberships m
		JOIN resource_groups rg ON rg.workspace_id = m.workspace_id
		JOIN job_collections c ON c.resource_group_id = rg.id AND c.state = 'Enabled'
		CROSS JOIN LATERAL (
			SELECT * FROM jobs j WHERE j.job_collection_id = c.id AND j.state = 'enabled' AND j.next_run_at IS NOT NULL
			ORDER BY j.next_run_at LIMIT ?
		) j
		WHERE `+mine+`
		ORDER BY j.next_run_at
		LIMIT ?`, args(limit, mineArgs, limit)...).Scan(&out).Error
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
// job_history_failed_start_idx (migration 0004) in order (for a user who
// does not see every workspace, at most dashboardWalk rows); when that
// does not find limit failures of the user's jobs, it takes the newest
// failures of each of the user's jobs instead
// (job_history_job_status_start_idx).
// It is a read model for the dashboard.
func (s *Store) RecentFailures(ctx context.Context, userID int64, limit int) ([]HistoryWithJob, error) {
	return s.RecentFailuresIn(ctx, userID, "", limit)
}

// RecentFailuresIn is RecentFailures in the workspace ws of userID's (""
// for all of them); the caller has checked that userID is a member of ws.
func (s *Store) RecentFailuresIn(ctx context.Context, userID int64, ws string, limit int) ([]HistoryWithJob, error) {
	all, err := s.seesEverything(ctx, userID)
	if err != nil {
		return nil, translate("models: recent failures", err)
	}
	all = all && ws == ""
	member, memberArgs := memberIn(userID, ws)
	mine, mineArgs := membershipsIn(userID, ws)
	const cols = `h.*, j.name AS job_name, j.definition, c.name AS collection, rg.name AS resource_group, rg.workspace_id`
	limit = max(limit, 1)
	var out []HistoryWithJob
	if all {
		err = s.db.WithContext(ctx).Raw(`
			SELECT `+cols+`
			FROM job_history h
			JOIN jobs j ON j.id = h.job_id
			JOIN job_collections c ON c.id = j.job_collection_id
			JOIN resource_groups rg ON rg.id = c.resource_group_id
			WHERE h.status = 'Failed'
			ORDER BY h.start_time DESC, h.id DESC
			LIMIT ?`, limit).Scan(&out).Error
		if err != nil {
			return nil, translate("models: recent failures", err)
		}
		return out, nil
	}
	err = s.db.WithContext(ctx).Raw(`
		SELECT `+cols+`
		FROM (SELECT * FROM job_history WHERE status = 'Failed' ORDER BY start_time DESC, id DESC LIMIT ?) h
		JOIN jobs j ON j.id = h.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE `+member+`
		ORDER BY h.start_time DESC, h.id DESC
		LIMIT ?`, args(dashboardWalk, memberArgs, limit)...).Scan(&out).Error
	if err != nil || len(out) == limit {
		return out, translate("models: recent failures", err)
	}
	out = nil
	err = s.db.WithContext(ctx).Raw(`
		SELECT `+cols+`
		FROM memberships m
		JOIN resource_groups rg ON rg.workspace_id = m.workspace_id
		JOIN job_collections c ON c.resource_group_id = rg.id
		CROSS JOIN LATERAL (SELECT * FROM jobs j WHERE j.job_collection_id = c.id OFFSET 0) j
		CROSS JOIN LATERAL (
			SELECT * FROM job_history h WHERE h.job_id = j.id AND h.status = 'Failed'
			ORDER BY h.start_time DESC, h.id DESC LIMIT ?
		) h
		WHERE `+mine+`
		ORDER BY h.start_time DESC, h.id DESC
		LIMIT ?`, args(limit, mineArgs, limit)...).Scan(&out).Error
	if err != nil {
		return nil, translate("models: recent failures", err)
	}
	return out, nil
}

// CollectionSummary is one row of the dashboard: a collection the user may
// see with its jobs counted by state.
type CollectionSummary struct {
	WorkspaceID   string
	ResourceGroup string
	Name          string
	State         CollectionState
	SKU           string `gorm:"column:sku"`
	Enabled       int64
	Disabled      int64
	Completed     int64
	Faulted       int64
}

// CollectionSummaries returns every collection in the workspaces userID
// belongs to, ordered by workspace, group and name, with job counts (kept
// on write in collection_job_counts, models/rollups.go).
// It is a read model for the dashboard.
func (s *Store) CollectionSummaries(ctx context.Context, userID int64) ([]CollectionSummary, error) {
	return s.CollectionSummariesIn(ctx, userID, "")
}

// CollectionSummariesIn is CollectionSummaries in the workspace ws of
// userID's ("" for all of them).
func (s *Store) CollectionSummariesIn(ctx context.Context, userID int64, ws string) ([]CollectionSummary, error) {
	mine, mineArgs := membershipsIn(userID, ws)
	var out []CollectionSummary
	err := s.db.WithContext(ctx).Raw(`
		SELECT rg.workspace_id, rg.name AS resource_group, c.name, c.state, c.sku,
		       coalesce(k.enabled, 0) AS enabled, coalesce(k.disabled, 0) AS disabled,
		       coalesce(k.completed, 0) AS completed, coalesce(k.faulted, 0) AS faulted
		FROM job_collections c
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		JOIN memberships m ON m.workspace_id = rg.workspace_id AND `+mine+`
		LEFT JOIN collection_job_counts k ON k.job_collection_id = c.id
		ORDER BY rg.workspace_id, lower(rg.name), lower(c.name)`, mineArgs...).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection summaries", err)
	}
	return out, nil
}
