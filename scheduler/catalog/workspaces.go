package catalog

import (
	"context"
	"encoding/json"
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
	rec := &record{Change: Change{Op: OpCreateWorkspace, WorkspaceID: id, Detail: displayName}}
	var ws *models.Workspace
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if ws, err = tc.store.CreateWorkspace(ctx, id, displayName, actor.UserID); err != nil {
			return err
		}
		rec.WorkspaceID, rec.Detail, rec.After = ws.ID, ws.DisplayName, nameJSON(ws.DisplayName)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ws, nil
}

// RenameWorkspace sets the display name of workspace id (owners).
func (c *Catalog) RenameWorkspace(ctx context.Context, actor Actor, id, displayName string) (*models.Workspace, error) {
	ch := Change{Op: OpRenameWorkspace, WorkspaceID: id, Detail: displayName}
	if err := c.allow(ctx, actor, ch); err != nil {
		return nil, err
	}
	rec := &record{Change: ch}
	var ws *models.Workspace
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		if cur, err := tc.store.WorkspaceFold(ctx, id); err == nil {
			rec.Before = nameJSON(cur.DisplayName)
		}
		var err error
		if ws, err = tc.store.RenameWorkspace(ctx, id, displayName); err != nil {
			return err
		}
		rec.After = nameJSON(ws.DisplayName)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ws, nil
}

// nameJSON is a workspace's display name as a definition for the audit
// log's difference: {"displayName": "…"}.
func nameJSON(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"displayName": name})
	return b
}

// DeleteWorkspace deletes workspace id (owners) when it holds no
// collection, job or calendar; otherwise a *models.ConflictError names
// what is left (409).
func (c *Catalog) DeleteWorkspace(ctx context.Context, actor Actor, id string) error {
	ch := Change{Op: OpDeleteWorkspace, WorkspaceID: id}
	if err := c.allow(ctx, actor, ch); err != nil {
		return err
	}
	return c.audited(ctx, actor, &record{Change: ch}, func(tc *Catalog) error {
		return tc.store.DeleteWorkspace(ctx, id)
	})
}
