package models

// The forecast's read model: the enabled jobs of a workspace with the
// names of their collections and groups, joined for scheduler/forecast.

import (
	"context"
	"encoding/json"
	"time"
)

// ForecastJob is an enabled job of an enabled collection, with what is
// needed to compute its coming runs as the engine will: its definition,
// the moment its rule is compiled for and the occurrences already taken
// against recurrence.count.
type ForecastJob struct {
	ID             int64
	ResourceGroup  string
	Collection     string
	Name           string
	Definition     json.RawMessage
	CreatedAt      time.Time
	ScheduleBase   *time.Time
	ScheduledCount int64
}

// Path returns "group/collection/job".
func (j ForecastJob) Path() string { return j.ResourceGroup + "/" + j.Collection + "/" + j.Name }

// ForecastJobs returns up to limit enabled jobs of the enabled collections
// of workspaceID, in path order.
// It is a read model for the forecast.
func (s *Store) ForecastJobs(ctx context.Context, workspaceID string, limit int) ([]ForecastJob, error) {
	var out []ForecastJob
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.id, rg.name AS resource_group, c.name AS collection, j.name, j.definition,
		       j.created_at, j.schedule_base, j.scheduled_count
		FROM resource_groups rg
		JOIN job_collections c ON c.resource_group_id = rg.id AND c.state = 'Enabled'
		JOIN jobs j ON j.job_collection_id = c.id AND j.state = 'enabled'
		WHERE rg.workspace_id = ?
		ORDER BY lower(rg.name), lower(c.name), lower(j.name)
		LIMIT ?`, workspaceID, limit).Scan(&out).Error
	if err != nil {
		return nil, translate("models: forecast jobs", err)
	}
	return out, nil
}
