package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// CalendarVersion names a stored calendar and its version, without its
// definition: what a cache of compiled calendars checks on every use.
type CalendarVersion struct {
	ID      int64
	Name    string
	Version int64
}

// CalendarVersionsOf lists the calendars of workspaceID (id, name, version).
func (s *Store) CalendarVersionsOf(ctx context.Context, workspaceID string) ([]CalendarVersion, error) {
	var out []CalendarVersion
	err := s.db.WithContext(ctx).Raw(`SELECT id, name, version FROM calendars WHERE workspace_id = ? ORDER BY id`, workspaceID).
		Scan(&out).Error
	if err != nil {
		return nil, translate("models: calendar versions", err)
	}
	return out, nil
}

// CalendarVersionsForCollection lists the calendars of the workspace that
// holds the job collection collectionID.
func (s *Store) CalendarVersionsForCollection(ctx context.Context, collectionID int64) ([]CalendarVersion, error) {
	var out []CalendarVersion
	err := s.db.WithContext(ctx).Raw(`
		SELECT cal.id, cal.name, cal.version
		FROM job_collections c
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		JOIN calendars cal ON cal.workspace_id = rg.workspace_id
		WHERE c.id = ?
		ORDER BY cal.id`, collectionID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: calendar versions of a collection", err)
	}
	return out, nil
}

// CalendarsByID returns the calendars with the given ids (those that still
// exist), in id order.
func (s *Store) CalendarsByID(ctx context.Context, ids []int64) ([]Calendar, error) {
	var out []Calendar
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error; err != nil {
		return nil, translate("models: calendars by id", err)
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
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE lower((j.definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb @> jsonb_build_array(lower(?::text))
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
