package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DefaultWorkspaceID is the id of the workspace created with the first
// user; the API sees it as subscription "default".
const DefaultWorkspaceID = "default"

// Workspace is what the Azure Scheduler API calls a subscription: the top of
// the tenancy tree, with users as members.
type Workspace struct {
	ID          string
	DisplayName string
	CreatedAt   time.Time
}

// TableName tells GORM the table.
func (Workspace) TableName() string { return "workspaces" }

func ensureDefaultWorkspace(tx *gorm.DB) error {
	ws := Workspace{ID: DefaultWorkspaceID, DisplayName: "Default"}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&ws).Error; err != nil {
		return translate("models: ensure default workspace", err)
	}
	return nil
}

// WorkspacesOf returns the workspaces userID is a member of, by id.
func (s *Store) WorkspacesOf(ctx context.Context, userID int64) ([]Workspace, error) {
	var out []Workspace
	err := s.db.WithContext(ctx).
		Joins("JOIN memberships m ON m.workspace_id = workspaces.id").
		Where("m.user_id = ?", userID).
		Order("workspaces.id").
		Find(&out).Error
	if err != nil {
		return nil, translate("models: workspaces of user", err)
	}
	return out, nil
}

// Workspace returns the workspace id, or ErrNotFound.
func (s *Store) Workspace(ctx context.Context, id string) (*Workspace, error) {
	var ws Workspace
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&ws).Error; err != nil {
		return nil, translate("models: workspace", err)
	}
	return &ws, nil
}

// WorkspaceIDs returns the ids of every workspace, in order (an import
// checks the subscriptions its file names against them; an export by an
// administrator without a user covers them all).
func (s *Store) WorkspaceIDs(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.db.WithContext(ctx).Raw(`SELECT id FROM workspaces ORDER BY id`).Scan(&out).Error; err != nil {
		return nil, translate("models: workspace ids", err)
	}
	return out, nil
}
