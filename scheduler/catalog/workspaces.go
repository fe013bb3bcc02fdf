package catalog

import (
	"context"
	"errors"
	"fmt"

	"sked/models"
	"sked/models/problem"
)

// ErrMayNotCreate is the refusal of CreateWorkspace to a user who is not
// an administrator while workspaces are not open to everyone.
var ErrMayNotCreate = errors.New("only instance administrators may create workspaces here (the server runs without --open-workspaces)")

// WorkspacePolicy says who may create workspaces: administrators always,
// everyone when Open (--open-workspaces).
type WorkspacePolicy struct {
	Open bool
}

// CreateWorkspace creates workspace id with displayName for actor, who
// becomes its owner. isAdmin says whether actor's user is an instance
// administrator; policy whether everyone may create. An actor without a
// user cannot own a workspace (a *models.ValidationError on "owner").
// Errors: ErrMayNotCreate (403), a *models.ConflictError when the id is
// taken (409), a *models.ValidationError for a bad id or name (400).
func (c *Catalog) CreateWorkspace(ctx context.Context, actor Actor, isAdmin bool, policy WorkspacePolicy, id, displayName string) (*models.Workspace, error) {
	if actor.UserID == 0 {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "owner", Message: "is required: name the user who owns the new workspace"}}}
	}
	if !isAdmin && !policy.Open {
		return nil, ErrMayNotCreate
	}
	if actor.TokenID != 0 {
		// A token scoped to some workspaces or below owner creates none.
		scope, err := c.tokenScope(ctx, actor)
		if err != nil {
			return nil, fmt.Errorf("create workspace: %w", err)
		}
		if scope.Workspaces != nil || scope.Role != models.RoleOwner {
			return nil, &ForbiddenError{Workspace: id, Need: models.RoleOwner, Have: scope.Role, Token: true, OutOfScope: scope.Workspaces != nil}
		}
	}
	ws, err := c.store.CreateWorkspace(ctx, id, displayName, actor.UserID)
	if err != nil {
		return nil, err
	}
	c.changed(ctx, actor, Change{Op: OpCreateWorkspace, WorkspaceID: ws.ID, Detail: ws.DisplayName})
	return ws, nil
}

// RenameWorkspace sets the display name of workspace id (owners).
func (c *Catalog) RenameWorkspace(ctx context.Context, actor Actor, id, displayName string) (*models.Workspace, error) {
	ch := Change{Op: OpRenameWorkspace, WorkspaceID: id, Detail: displayName}
	if err := c.allow(ctx, actor, ch); err != nil {
		return nil, err
	}
	ws, err := c.store.RenameWorkspace(ctx, id, displayName)
	if err != nil {
		return nil, err
	}
	c.changed(ctx, actor, ch)
	return ws, nil
}

// DeleteWorkspace deletes workspace id (owners) when it holds no
// collection, job or calendar; otherwise a *models.ConflictError names
// what is left (409).
func (c *Catalog) DeleteWorkspace(ctx context.Context, actor Actor, id string) error {
	ch := Change{Op: OpDeleteWorkspace, WorkspaceID: id}
	if err := c.allow(ctx, actor, ch); err != nil {
		return err
	}
	if err := c.store.DeleteWorkspace(ctx, id); err != nil {
		return err
	}
	c.changed(ctx, actor, ch)
	return nil
}
