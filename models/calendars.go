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

// PutCalendarParams is a calendar to write by PutCalendar or
// PutCalendarVersion.
type PutCalendarParams struct {
	WorkspaceID string
	Name        string
	// Definition is the canonical calendar JSON of models/caldef.
	Definition json.RawMessage
	// UserID is recorded as creator or last editor; 0 means none.
	UserID int64
}

// PutCalendar creates the calendar p.Name of p.WorkspaceID or replaces the
// definition of the one that exists under that name (case-insensitive;
// it keeps its spelling), bumping its version when the definition
// changes. p.UserID (0: none) is recorded as creator or last editor. It
// reports whether the calendar was created; an unknown workspace is
// ErrNotFound.
func (s *Store) PutCalendar(ctx context.Context, p PutCalendarParams) (created bool, err error) {
	workspaceID, name, def, userID := p.WorkspaceID, p.Name, p.Definition, p.UserID
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

// PutCalendarVersion is PutCalendar for a writer that read the calendar at
// version (0: it did not exist): it writes only when the calendar is still
// at that version, and otherwise returns ErrConflict, so that two writers
// who both read it cannot lose each other's change.
func (s *Store) PutCalendarVersion(ctx context.Context, p PutCalendarParams, version int64) (created bool, err error) {
	workspaceID, name, def, userID := p.WorkspaceID, p.Name, p.Definition, p.UserID
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
