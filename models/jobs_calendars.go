package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// JobRef names a job of a workspace by its path.
type JobRef struct {
	ID            int64
	CollectionID  int64
	ResourceGroup string
	Collection    string
	Name          string
	State         string
}

// String returns the job's path "group/collection/job".
func (r JobRef) String() string { return r.ResourceGroup + "/" + r.Collection + "/" + r.Name }

// excludesCalendar is the condition "the job's facets f exclude the
// calendar named by the placeholder" (case-insensitively), served by
// job_facets_calendar_excludes_idx (migration 0025).
const excludesCalendar = `f.calendar_excludes @> jsonb_build_array(lower(?::text))`

// JobsUsingCalendar returns the jobs of workspaceID whose
// recurrence.calendars.exclude names the calendar name (compared without
// regard to case), whatever their state, in path order.
func (s *Store) JobsUsingCalendar(ctx context.Context, workspaceID, name string) ([]JobRef, error) {
	var out []JobRef
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.id, j.job_collection_id AS collection_id, rg.name AS resource_group, c.name AS collection,
		       j.name, j.state
		FROM jobs j
		JOIN job_facets f ON f.job_id = j.id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE `+excludesCalendar+`
		  AND rg.workspace_id = ?
		ORDER BY lower(rg.name), lower(c.name), lower(j.name)`,
		name, workspaceID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: jobs using calendar", err)
	}
	return out, nil
}

// CalendarJob is an enabled job that excludes a calendar, with what its
// re-planning needs.
type CalendarJob struct {
	ID           int64
	Definition   json.RawMessage
	ScheduleBase *time.Time
	NextRunAt    *time.Time
}

// EnabledJobsUsingCalendar returns the enabled jobs of workspaceID that
// exclude the calendar name and already have a next run (the engine plans
// the others itself).
func (s *Store) EnabledJobsUsingCalendar(ctx context.Context, workspaceID, name string) ([]CalendarJob, error) {
	var out []CalendarJob
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.id, j.definition, j.schedule_base, j.next_run_at
		FROM jobs j
		JOIN job_facets f ON f.job_id = j.id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE `+excludesCalendar+`
		  AND rg.workspace_id = ? AND j.state = 'enabled' AND NOT j.needs_schedule AND j.next_run_at IS NOT NULL
		ORDER BY j.id`, name, workspaceID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: enabled jobs using calendar", err)
	}
	return out, nil
}

// ReplanJob moves the next run of job id from old to next (nil: none left
// for now) and wakes the engines, unless the job changed meanwhile (its
// next run is no longer old, or it is no longer enabled and planned): then
// it does nothing and reports false.
func (s *Store) ReplanJob(ctx context.Context, id int64, old time.Time, next *time.Time) (bool, error) {
	var moved bool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE jobs SET next_run_at = ? WHERE id = ? AND state = 'enabled' AND NOT needs_schedule AND next_run_at = ?`,
			next, id, old)
		if res.Error != nil {
			return res.Error
		}
		moved = res.RowsAffected == 1
		if !moved {
			return nil
		}
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return false, translate("models: replan job", err)
	}
	return moved, nil
}
