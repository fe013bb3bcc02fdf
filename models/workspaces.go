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

// Membership gives a user access to a workspace. Role is "owner" or
// "member".
type Membership struct {
	WorkspaceID string
	UserID      int64
	Role        string
	CreatedAt   time.Time
}

// TableName tells GORM the table.
func (Membership) TableName() string { return "memberships" }

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

// IsMember reports whether userID belongs to workspaceID.
func (s *Store) IsMember(ctx context.Context, workspaceID string, userID int64) (bool, error) {
	var exists bool
	err := s.db.WithContext(ctx).
		Raw("SELECT EXISTS (SELECT 1 FROM memberships WHERE workspace_id = ? AND user_id = ?)", workspaceID, userID).
		Scan(&exists).Error
	if err != nil {
		return false, translate("models: is member", err)
	}
	return exists, nil
}

// MemberWorkspace returns the id, in its stored spelling, of the workspace
// matching workspaceID case-insensitively (as ARM subscription ids do)
// that userID is a member of; ok is false when there is none.
func (s *Store) MemberWorkspace(ctx context.Context, workspaceID string, userID int64) (id string, ok bool, err error) {
	var ids []string
	err = s.db.WithContext(ctx).
		Raw("SELECT workspace_id FROM memberships WHERE lower(workspace_id) = lower(?) AND user_id = ? ORDER BY workspace_id LIMIT 1",
			workspaceID, userID).Scan(&ids).Error
	if err != nil {
		return "", false, translate("models: member workspace", err)
	}
	if len(ids) == 0 {
		return "", false, nil
	}
	return ids[0], true, nil
}
