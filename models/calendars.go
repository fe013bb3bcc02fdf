package models

import (
	"context"
	"encoding/json"
	"time"
)

// Calendar is a stored calendar of a workspace (SPEC §13.6): its name and
// its definition, the canonical calendar JSON of models/caldef (without
// the name). Version starts at 1 and grows with every change, so that
// compiled calendars can be cached by it.
type Calendar struct {
	ID          int64
	WorkspaceID string
	Name        string
	Definition  json.RawMessage `gorm:"type:jsonb"`
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CreatedBy   *int64
	UpdatedBy   *int64
}

// TableName tells GORM the table.
func (Calendar) TableName() string { return "calendars" }

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

// PutCalendar creates the calendar name of workspaceID or replaces the
// definition of the one that exists under that name (case-insensitive;
// it keeps its spelling), bumping its version when the definition
// changes. userID (0: none) is recorded as creator or last editor. It
// reports whether the calendar was created; an unknown workspace is
// ErrNotFound.
func (s *Store) PutCalendar(ctx context.Context, workspaceID, name string, def json.RawMessage, userID int64) (created bool, err error) {
	var by *int64
	if userID != 0 {
		by = &userID
	}
	now := time.Now().UTC()
	var rows []struct{ Inserted bool }
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO calendars (workspace_id, name, definition, created_at, updated_at, created_by, updated_by)
		VALUES (?, ?, ?::jsonb, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, lower(name)) DO UPDATE
		SET definition = EXCLUDED.definition,
		    version = calendars.version + CASE WHEN calendars.definition = EXCLUDED.definition THEN 0 ELSE 1 END,
		    updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
		RETURNING (xmax = 0) AS inserted`,
		workspaceID, name, string(def), now, now, by, by).Scan(&rows).Error
	if err != nil {
		return false, translate("models: put calendar", err)
	}
	return len(rows) == 1 && rows[0].Inserted, nil
}

// CalendarByName returns the calendar name of workspaceID
// (case-insensitive), or ErrNotFound.
func (s *Store) CalendarByName(ctx context.Context, workspaceID, name string) (*Calendar, error) {
	var c Calendar
	err := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Take(&c).Error
	if err != nil {
		return nil, translate("models: calendar", err)
	}
	return &c, nil
}

// CalendarsOf returns the calendars of workspaceID in name order.
func (s *Store) CalendarsOf(ctx context.Context, workspaceID string) ([]Calendar, error) {
	var out []Calendar
	err := s.db.WithContext(ctx).
		Where("workspace_id = ?", workspaceID).
		Order("lower(name)").
		Find(&out).Error
	if err != nil {
		return nil, translate("models: calendars of workspace", err)
	}
	return out, nil
}

// DeleteCalendar deletes the calendar name of workspaceID, or returns
// ErrNotFound. Whether jobs still use it is the caller's check.
func (s *Store) DeleteCalendar(ctx context.Context, workspaceID, name string) error {
	res := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Delete(&Calendar{})
	if res.Error != nil {
		return translate("models: delete calendar", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete calendar", ErrNotFound)
	}
	return nil
}

// JobsUsingCalendar returns the jobs of workspaceID whose
// recurrence.calendars.exclude names the calendar name (compared without
// regard to case), whatever their state, in path order.
func (s *Store) JobsUsingCalendar(ctx context.Context, workspaceID, name string) ([]JobRef, error) {
	var out []JobRef
	err := s.db.WithContext(ctx).Raw(`
		SELECT j.id, j.job_collection_id AS collection_id, rg.name AS resource_group, c.name AS collection,
		       j.name, j.state
		FROM jobs j
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE lower((j.definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb @> jsonb_build_array(lower(?::text))
		  AND rg.workspace_id = ?
		ORDER BY lower(rg.name), lower(c.name), lower(j.name)`,
		name, workspaceID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: jobs using calendar", err)
	}
	return out, nil
}

// PutCalendarVersion is PutCalendar for a writer that read the calendar at
// version (0: it did not exist): it writes only when the calendar is still
// at that version, and otherwise returns ErrConflict, so that two writers
// who both read it cannot lose each other's change.
func (s *Store) PutCalendarVersion(ctx context.Context, workspaceID, name string, def json.RawMessage, userID, version int64) (created bool, err error) {
	var by *int64
	if userID != 0 {
		by = &userID
	}
	now := time.Now().UTC()
	if version == 0 {
		err := s.db.WithContext(ctx).Exec(`
			INSERT INTO calendars (workspace_id, name, definition, created_at, updated_at, created_by, updated_by)
			VALUES (?, ?, ?::jsonb, ?, ?, ?, ?)`, workspaceID, name, string(def), now, now, by, by).Error
		return err == nil, translate("models: put calendar", err)
	}
	res := s.db.WithContext(ctx).Exec(`
		UPDATE calendars
		SET definition = ?::jsonb,
		    version = version + CASE WHEN definition = ?::jsonb THEN 0 ELSE 1 END,
		    updated_at = ?, updated_by = ?
		WHERE workspace_id = ? AND lower(name) = lower(?) AND version = ?`,
		string(def), string(def), now, by, workspaceID, name, version)
	if res.Error != nil {
		return false, translate("models: put calendar", res.Error)
	}
	if res.RowsAffected == 0 {
		return false, translate("models: put calendar", ErrConflict)
	}
	return false, nil
}
