package models

import (
	"context"
	"fmt"
	"regexp"
	"sked/models/problem"
	"strings"

	"gorm.io/gorm"
)

// workspaceIDRE is the rule of a workspace's id (the database checks it
// too): what the ARM API takes as a subscription id.
var workspaceIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,89}$`)

// ValidWorkspaceID reports whether s may name a workspace: a letter or
// digit, then up to 89 letters, digits, '.', '_' or '-'.
func ValidWorkspaceID(s string) bool { return workspaceIDRE.MatchString(s) }

// maxDisplayName bounds a workspace's display name, in characters.
const maxDisplayName = 200

func checkWorkspace(id, displayName string) error {
	v := &problem.List{}
	if !ValidWorkspaceID(id) {
		v.Add("id", "must be 1 to 90 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	if n := len([]rune(displayName)); n > maxDisplayName {
		v.Add("displayName", fmt.Sprintf("is %d characters, over the maximum of %d", n, maxDisplayName))
	}
	return v.OrNil()
}

// CreateWorkspace creates workspace id (matched case-insensitively
// against the others: an id that differs only in case is taken) with
// ownerID as its owner. A taken id gives a ConflictError; a bad id or
// display name a ValidationError on "id" or "displayName"; an empty display
// name is the id.
func (s *Store) CreateWorkspace(ctx context.Context, id, displayName string, ownerID int64) (*Workspace, error) {
	displayName = strings.TrimSpace(displayName)
	if err := checkWorkspace(id, displayName); err != nil {
		return nil, err
	}
	if displayName == "" {
		displayName = id
	}
	ws := &Workspace{ID: id, DisplayName: displayName}
	err := s.inTx(ctx, "models: create workspace", func(tx *gorm.DB) error {
		var taken []string
		if err := tx.Raw(`SELECT id FROM workspaces WHERE lower(id) = lower(?) FOR UPDATE`, id).Scan(&taken).Error; err != nil {
			return translate("models: create workspace", err)
		}
		if len(taken) > 0 {
			return &ConflictError{Message: fmt.Sprintf("the workspace %s already exists", taken[0])}
		}
		if err := tx.Create(ws).Error; err != nil {
			return translate("models: create workspace", err)
		}
		if err := tx.Create(&Membership{WorkspaceID: ws.ID, UserID: ownerID, Role: RoleOwner}).Error; err != nil {
			return translate("models: create workspace: owner", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ws, nil
}

// RenameWorkspace sets the display name of workspace id (its id, the ARM
// subscription id, never changes) and returns it; ErrNotFound when there
// is none.
func (s *Store) RenameWorkspace(ctx context.Context, id, displayName string) (*Workspace, error) {
	displayName = strings.TrimSpace(displayName)
	if err := checkWorkspace(id, displayName); err != nil {
		return nil, err
	}
	if displayName == "" {
		displayName = id
	}
	res := s.db.WithContext(ctx).Model(&Workspace{}).Where("id = ?", id).Update("display_name", displayName)
	if res.Error != nil {
		return nil, translate("models: rename workspace", res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("models: rename workspace: %w", ErrNotFound)
	}
	return s.Workspace(ctx, id)
}

// WorkspaceContents counts what a workspace holds: job collections, jobs
// and calendars.
type WorkspaceContents struct {
	Collections int64
	Jobs        int64
	Calendars   int64
}

// Empty reports whether the workspace holds nothing.
func (w WorkspaceContents) Empty() bool { return w.Collections+w.Jobs+w.Calendars == 0 }

// String names what is left: "2 collections, 5 jobs and 1 calendar".
func (w WorkspaceContents) String() string {
	var parts []string
	add := func(n int64, one string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %ss", n, one))
		}
	}
	add(w.Collections, "collection")
	add(w.Jobs, "job")
	add(w.Calendars, "calendar")
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func workspaceContents(tx *gorm.DB, id string) (WorkspaceContents, error) {
	var w WorkspaceContents
	err := tx.Raw(`SELECT
		(SELECT count(*) FROM job_collections jc JOIN resource_groups rg ON rg.id = jc.resource_group_id WHERE rg.workspace_id = ?) AS collections,
		(SELECT count(*) FROM jobs j JOIN job_collections jc ON jc.id = j.job_collection_id JOIN resource_groups rg ON rg.id = jc.resource_group_id WHERE rg.workspace_id = ?) AS jobs,
		(SELECT count(*) FROM calendars c WHERE c.workspace_id = ?) AS calendars`, id, id, id).Scan(&w).Error
	return w, err
}

// DeleteWorkspace deletes workspace id, its memberships and its empty
// resource groups, only when it holds no collection, job or calendar:
// otherwise a ConflictError names what is left, and nothing changes.
// ErrNotFound when there is no such workspace.
func (s *Store) DeleteWorkspace(ctx context.Context, id string) error {
	return s.inTx(ctx, "models: delete workspace", func(tx *gorm.DB) error {
		var ws Workspace
		if err := tx.Raw(`SELECT * FROM workspaces WHERE id = ? FOR UPDATE`, id).Scan(&ws).Error; err != nil {
			return translate("models: delete workspace", err)
		}
		if ws.ID == "" {
			return fmt.Errorf("models: delete workspace: %w", ErrNotFound)
		}
		left, err := workspaceContents(tx, id)
		if err != nil {
			return translate("models: delete workspace", err)
		}
		if !left.Empty() {
			return &ConflictError{Message: fmt.Sprintf("the workspace %s still holds %s: delete them first", id, left)}
		}
		if err := tx.Exec(`DELETE FROM workspaces WHERE id = ?`, id).Error; err != nil {
			return translate("models: delete workspace", err)
		}
		return nil
	})
}

// WorkspaceFold returns the workspace whose id matches id
// case-insensitively (as ARM subscription ids do), or ErrNotFound.
func (s *Store) WorkspaceFold(ctx context.Context, id string) (*Workspace, error) {
	var ws Workspace
	if err := s.db.WithContext(ctx).Where("lower(id) = lower(?)", id).Order("id").Take(&ws).Error; err != nil {
		return nil, translate("models: workspace", err)
	}
	return &ws, nil
}
