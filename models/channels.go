package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"sked/models/jobdef"
)

// Channel is a stored notification channel of a workspace (SPEC §13.3,
// migrations/0010): its type, its configuration without secrets (the
// JSON of notifydef Channel.Config) and its secrets, opened. Secrets is
// nil when the channel has none.
type Channel struct {
	ID          int64
	WorkspaceID string
	Name        string
	Type        string
	Description string
	Config      json.RawMessage   `gorm:"type:jsonb"`
	Sealed      []byte            `gorm:"column:secrets"`
	Secrets     map[string]string `gorm:"-"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CreatedBy   *int64
	UpdatedBy   *int64
}

// TableName tells GORM the table.
func (Channel) TableName() string { return "channels" }

// ChannelWrite is what PutChannel writes.
type ChannelWrite struct {
	WorkspaceID string
	// Name is the channel's name; an existing channel is found without
	// regard to case and keeps its spelling.
	Name        string
	Type        string
	Description string
	Config      json.RawMessage
	// Secrets are sealed with the store's secret key; writing secrets
	// without a key is ErrNoSecretKey.
	Secrets map[string]string
	// UserID (0: none) is recorded as creator or last editor.
	UserID int64
}

// PutChannel creates the channel w.Name of w.WorkspaceID or replaces the
// one of that name. It reports whether the channel was created; an
// unknown workspace is ErrNotFound.
func (s *Store) PutChannel(ctx context.Context, w ChannelWrite) (created bool, err error) {
	sealed, err := s.box.seal(jobdef.Secrets(w.Secrets))
	if err != nil {
		return false, fmt.Errorf("models: put channel: %w", err)
	}
	var by *int64
	if w.UserID != 0 {
		by = &w.UserID
	}
	now := time.Now().UTC()
	var rows []struct{ Inserted bool }
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO channels (workspace_id, name, type, description, config, secrets, created_at, updated_at, created_by, updated_by)
		VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, lower(name)) DO UPDATE
		SET type = EXCLUDED.type, description = EXCLUDED.description, config = EXCLUDED.config,
		    secrets = EXCLUDED.secrets, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
		RETURNING (xmax = 0) AS inserted`,
		w.WorkspaceID, w.Name, w.Type, w.Description, string(w.Config), sealed, now, now, by, by).Scan(&rows).Error
	if err != nil {
		return false, translate("models: put channel", err)
	}
	return len(rows) == 1 && rows[0].Inserted, nil
}

// ChannelByName returns the channel name of workspaceID
// (case-insensitive) with its secrets opened, or ErrNotFound.
func (s *Store) ChannelByName(ctx context.Context, workspaceID, name string) (*Channel, error) {
	var c Channel
	err := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Take(&c).Error
	if err != nil {
		return nil, translate("models: channel", err)
	}
	if c.Secrets, err = s.box.open(c.Sealed); err != nil {
		return nil, fmt.Errorf("models: channel %s: %w", c.Name, err)
	}
	return &c, nil
}

// ChannelByID returns the channel id with its secrets opened, or
// ErrNotFound.
func (s *Store) ChannelByID(ctx context.Context, id int64) (*Channel, error) {
	var c Channel
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&c).Error; err != nil {
		return nil, translate("models: channel", err)
	}
	var err error
	if c.Secrets, err = s.box.open(c.Sealed); err != nil {
		return nil, fmt.Errorf("models: channel %s: %w", c.Name, err)
	}
	return &c, nil
}

// ChannelsOf returns the channels of workspaceID in name order, with
// their secrets opened.
func (s *Store) ChannelsOf(ctx context.Context, workspaceID string) ([]Channel, error) {
	var out []Channel
	err := s.db.WithContext(ctx).
		Where("workspace_id = ?", workspaceID).
		Order("lower(name)").
		Find(&out).Error
	if err != nil {
		return nil, translate("models: channels of workspace", err)
	}
	for i := range out {
		if out[i].Secrets, err = s.box.open(out[i].Sealed); err != nil {
			return nil, fmt.Errorf("models: channel %s: %w", out[i].Name, err)
		}
	}
	return out, nil
}

// DeleteChannel deletes the channel name of workspaceID, or returns
// ErrNotFound. A channel that alert rules send to cannot be deleted
// (ErrConflict): the caller names the rules (AlertRulesOfChannel). Its
// delivery log stays, with the channel's name.
func (s *Store) DeleteChannel(ctx context.Context, workspaceID, name string) error {
	res := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Delete(&Channel{})
	if res.Error != nil {
		if isForeignKeyViolation(res.Error) {
			return fmt.Errorf("models: delete channel: %w", ErrConflict)
		}
		return translate("models: delete channel", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete channel", ErrNotFound)
	}
	return nil
}
