package models

import (
	"context"
	"errors"
	"fmt"
	"sked/models/problem"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Membership gives a user access to a workspace. Role is the name of a
// Role: "reader", "operator", "editor" or "owner".
type Membership struct {
	WorkspaceID string
	UserID      int64
	Role        string
	CreatedAt   time.Time
}

// TableName tells GORM the table.
func (Membership) TableName() string { return "memberships" }

// Member is a user's membership of a workspace, with what lists show of the
// user.
type Member struct {
	UserID    int64
	Username  string
	Role      string
	IsAdmin   bool
	Disabled  bool
	CreatedAt time.Time // when the user joined the workspace
}

// MemberRole returns the role of userID in workspaceID; ok is false when
// the user is not a member.
func (s *Store) MemberRole(ctx context.Context, workspaceID string, userID int64) (role string, ok bool, err error) {
	var roles []string
	err = s.db.WithContext(ctx).Model(&Membership{}).
		Where("workspace_id = ? AND user_id = ?", workspaceID, userID).
		Pluck("role", &roles).Error
	if err != nil {
		return "", false, translate("models: member role", err)
	}
	if len(roles) == 0 {
		return "", false, nil
	}
	return roles[0], true, nil
}

// MembersOf lists the members of workspaceID by user name
// (case-insensitively).
func (s *Store) MembersOf(ctx context.Context, workspaceID string) ([]Member, error) {
	var out []Member
	err := s.db.WithContext(ctx).Table("memberships m").
		Select("m.user_id, u.username, m.role, u.is_admin, u.disabled, m.created_at").
		Joins("JOIN users u ON u.id = m.user_id").
		Where("m.workspace_id = ?", workspaceID).
		Order("lower(u.username), u.id").
		Scan(&out).Error
	if err != nil {
		return nil, translate("models: members of workspace", err)
	}
	return out, nil
}

// AddMember makes the user named username (case-insensitively) a member
// of workspaceID with role (a Role's name; ParseRole). An empty or unknown
// name, a user who already is a member and an unknown role are a
// *problem.List on "username" or "role"; an unknown workspace gives
// ErrNotFound.
func (s *Store) AddMember(ctx context.Context, workspaceID, username, role string) (*Member, error) {
	username = strings.TrimSpace(username)
	v := &problem.List{}
	if username == "" {
		v.Add("username", "is required")
	}
	parsed, perr := ParseRole(role)
	if perr != nil {
		v.Add("role", "must be reader, operator, editor or owner")
	}
	role = string(parsed)
	if err := v.OrNil(); err != nil {
		return nil, err
	}
	var added *Member
	err := s.inTx(ctx, "models: add member", func(tx *gorm.DB) error {
		var ws Workspace
		if err := tx.Where("id = ?", workspaceID).Take(&ws).Error; err != nil {
			return translate("models: add member", err)
		}
		var user User
		err := tx.Where("lower(username) = lower(?)", username).Take(&user).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return &problem.List{Problems: []problem.Problem{{Path: "username", Message: fmt.Sprintf("%q is not a user of Sked", username)}}}
		}
		if err != nil {
			return translate("models: add member", err)
		}
		m := Membership{WorkspaceID: ws.ID, UserID: user.ID, Role: role}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&m)
		if res.Error != nil {
			return translate("models: add member", res.Error)
		}
		if res.RowsAffected == 0 {
			return &problem.List{Problems: []problem.Problem{{Path: "username", Message: fmt.Sprintf("%s is already a member", user.Username)}}}
		}
		added = &Member{UserID: user.ID, Username: user.Username, Role: role, IsAdmin: user.IsAdmin, Disabled: user.Disabled, CreatedAt: m.CreatedAt}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return added, nil
}

// RemoveMember removes userID from workspaceID. Removing the only owner
// gives ErrLastOwner and changes nothing (two owners removing each other at
// the same moment cannot both succeed); a user who is not a member gives
// ErrNotFound.
func (s *Store) RemoveMember(ctx context.Context, workspaceID string, userID int64) error {
	return s.inTx(ctx, "models: remove member", func(tx *gorm.DB) error {
		// Lock the owners' rows so that concurrent removals are serialised.
		var owners []int64
		err := tx.Model(&Membership{}).Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("workspace_id = ? AND role = ?", workspaceID, RoleOwner).
			Pluck("user_id", &owners).Error
		if err != nil {
			return translate("models: remove member", err)
		}
		isOwner := false
		for _, id := range owners {
			if id == userID {
				isOwner = true
			}
		}
		if isOwner && len(owners) == 1 {
			return fmt.Errorf("models: remove member: %w", ErrLastOwner)
		}
		res := tx.Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Delete(&Membership{})
		if res.Error != nil {
			return translate("models: remove member", res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: remove member: %w", ErrNotFound)
		}
		return nil
	})
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

// RoleIn returns the role of userID in workspaceID (matched
// case-insensitively), or "" (no role) when
// the user is not a member.
func (s *Store) RoleIn(ctx context.Context, workspaceID string, userID int64) (Role, error) {
	var roles []string
	err := s.db.WithContext(ctx).Model(&Membership{}).
		Where("lower(workspace_id) = lower(?) AND user_id = ?", workspaceID, userID).
		Pluck("role", &roles).Error
	if err != nil {
		return "", translate("models: role in workspace", err)
	}
	if len(roles) == 0 {
		return "", nil
	}
	return Role(roles[0]), nil
}

// SetMemberRole gives userID the role in workspaceID. Demoting the only
// owner gives ErrLastOwner and changes nothing (the owners' rows are
// locked, as RemoveMember does); a user who is not a member gives
// ErrNotFound; a role that is not one of the four is a ValidationError on
// "role".
func (s *Store) SetMemberRole(ctx context.Context, workspaceID string, userID int64, role Role) error {
	if !role.Valid() {
		return &problem.List{Problems: []problem.Problem{{Path: "role", Message: "must be reader, operator, editor or owner"}}}
	}
	return s.inTx(ctx, "models: set member role", func(tx *gorm.DB) error {
		var owners []int64
		err := tx.Model(&Membership{}).Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("workspace_id = ? AND role = ?", workspaceID, RoleOwner).
			Pluck("user_id", &owners).Error
		if err != nil {
			return translate("models: set member role", err)
		}
		if role != RoleOwner && len(owners) == 1 && owners[0] == userID {
			return fmt.Errorf("models: set member role: %w", ErrLastOwner)
		}
		res := tx.Model(&Membership{}).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Update("role", string(role))
		if res.Error != nil {
			return translate("models: set member role", res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: set member role: %w", ErrNotFound)
		}
		return nil
	})
}
