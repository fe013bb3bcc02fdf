package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Roles a member can have in a workspace.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// ErrLastOwner means the change would leave a workspace without an owner.
var ErrLastOwner = errors.New("the last owner of a workspace cannot be removed")

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

// Users lists every user by name (case-insensitively).
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var out []User
	if err := s.db.WithContext(ctx).Order("lower(username), id").Find(&out).Error; err != nil {
		return nil, translate("models: list users", err)
	}
	return out, nil
}

// ValidatePassword reports a problem with password, on field "password",
// under the rules of NewUser.Validate.
func ValidatePassword(password string) error {
	v := &ValidationError{}
	for _, p := range asValidation(NewUser{Username: "x", Password: password}.Validate()) {
		if p.Field == "password" {
			v.Add(p.Field, p.Message)
		}
	}
	return v.OrNil()
}

func asValidation(err error) []FieldError {
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Problems
	}
	return nil
}

// ResetPassword gives the user id a new password (validated as for
// NewUser; a problem is a ValidationError on "password") and ends all of
// the user's sessions, in one transaction. An unknown id gives
// ErrNotFound.
func (s *Store) ResetPassword(ctx context.Context, id int64, password string) error {
	if err := ValidatePassword(password); err != nil {
		return err
	}
	return s.setPassword(ctx, "models: reset password", id, password)
}

// Workspace returns the workspace id, or ErrNotFound.
func (s *Store) Workspace(ctx context.Context, id string) (*Workspace, error) {
	var ws Workspace
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&ws).Error; err != nil {
		return nil, translate("models: workspace", err)
	}
	return &ws, nil
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
// of workspaceID with role (RoleOwner or RoleMember). An empty or unknown
// name, a user who already is a member and an unknown role are a
// ValidationError on "username" or "role"; an unknown workspace gives
// ErrNotFound.
func (s *Store) AddMember(ctx context.Context, workspaceID, username, role string) (*Member, error) {
	username = strings.TrimSpace(username)
	v := &ValidationError{}
	if username == "" {
		v.Add("username", "is required")
	}
	if role != RoleOwner && role != RoleMember {
		v.Add("role", "must be owner or member")
	}
	if err := v.OrNil(); err != nil {
		return nil, err
	}
	var added *Member
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ws Workspace
		if err := tx.Where("id = ?", workspaceID).Take(&ws).Error; err != nil {
			return translate("models: add member", err)
		}
		var user User
		err := tx.Where("lower(username) = lower(?)", username).Take(&user).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return &ValidationError{Problems: []FieldError{{Field: "username", Message: fmt.Sprintf("%q is not a user of Sked", username)}}}
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
			return &ValidationError{Problems: []FieldError{{Field: "username", Message: fmt.Sprintf("%s is already a member", user.Username)}}}
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
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
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
