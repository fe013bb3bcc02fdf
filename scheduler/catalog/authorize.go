package catalog

import (
	"context"
	"errors"
	"fmt"

	"sked/models"
)

// opRoles is the role each change needs in its workspace (SPEC §13.4):
// operators run jobs now and enable or disable them; editors create,
// change, delete and import; owners manage members and the workspace.
var opRoles = map[Op]models.Role{
	OpPutCollection:      models.RoleEditor,
	OpPatchCollection:    models.RoleEditor,
	OpSetCollectionState: models.RoleOperator,
	OpDeleteCollection:   models.RoleEditor,
	OpPutJob:             models.RoleEditor,
	OpPatchJob:           models.RoleEditor,
	OpDeleteJob:          models.RoleEditor,
	OpEnableJob:          models.RoleOperator,
	OpDisableJob:         models.RoleOperator,
	OpRunJob:             models.RoleOperator,
	OpRerunJob:           models.RoleOperator,
	OpRunJobChanges:      models.RoleEditor,
	OpBackfillJob:        models.RoleOperator,
	OpCancelBackfill:     models.RoleOperator,
	OpPutCalendar:        models.RoleEditor,
	OpDeleteCalendar:     models.RoleEditor,
	OpImportCalendar:     models.RoleEditor,
	OpImport:             models.RoleEditor,
	OpRenameWorkspace:    models.RoleOwner,
	OpDeleteWorkspace:    models.RoleOwner,
	OpPutMember:          models.RoleOwner,
	OpRemoveMember:       models.RoleOwner,
	OpPutSigning:         models.RoleEditor,
	OpDeleteSigning:      models.RoleEditor,
	OpPutChannel:         models.RoleOwner,
	OpDeleteChannel:      models.RoleOwner,
	OpTestChannel:        models.RoleOwner,
	OpPutAlertRule:       models.RoleOwner,
	OpDeleteAlertRule:    models.RoleOwner,
	OpPutTarget:          models.RoleEditor,
	OpDeleteTarget:       models.RoleEditor,
	OpPutMonitor:         models.RoleEditor,
	OpDeleteMonitor:      models.RoleEditor,
	OpRotateMonitor:      models.RoleEditor,
}

// NeedFor returns the role a change of kind op needs; an Op without a rule
// needs owner, so that a new kind of change is never open by mistake.
func NeedFor(op Op) models.Role {
	if r, ok := opRoles[op]; ok {
		return r
	}
	return models.RoleOwner
}

// ForbiddenError is the refusal of Authorize: the actor may not do what
// needs role Need in Workspace. Handlers answer it with 403 and its
// message.
type ForbiddenError struct {
	Workspace string
	Need      models.Role
	// Have is the actor's role there: "" when not a member or, with
	// OutOfScope, when the token does not cover the workspace.
	Have models.Role
	// Token is set when the request carried an API token (its role may be
	// what falls short).
	Token bool
	// OutOfScope is set when the API token does not cover Workspace.
	OutOfScope bool
}

// Error names the role needed: "this needs the editor role in workspace
// team-a (you have reader)".
func (e *ForbiddenError) Error() string {
	switch {
	case e.OutOfScope:
		return fmt.Sprintf("this API token does not cover workspace %s", e.Workspace)
	case e.Have == "":
		return fmt.Sprintf("you are not a member of workspace %s", e.Workspace)
	case e.Token:
		return fmt.Sprintf("this needs the %s role in workspace %s (with this API token you have %s)", e.Need, e.Workspace, e.Have)
	}
	return fmt.Sprintf("this needs the %s role in workspace %s (you have %s)", e.Need, e.Workspace, e.Have)
}

// RoleOf returns what actor may do in workspaceID (matched
// case-insensitively): the user's role there, capped by the role of the
// API token, if any. An actor without a user is trusted as owner only
// when it says who it is: the command line without --user (ViaCLI, run by
// someone with the database's URL) and Sked itself (System); any other,
// the zero Actor first, has no role (""). A token that does
// not cover the workspace gives a *ForbiddenError with OutOfScope. The
// role found is kept in actor.Roles, and read from it when it is there.
func (c *Catalog) RoleOf(ctx context.Context, actor Actor, workspaceID string) (models.Role, error) {
	if actor.UserID == 0 {
		if actor.Via == ViaCLI || actor.system {
			return models.RoleOwner, nil
		}
		return "", nil
	}
	if role, ok := actor.Roles.role(workspaceID); ok {
		return role, nil
	}
	role, err := c.store.RoleIn(ctx, workspaceID, actor.UserID)
	if err != nil {
		return "", fmt.Errorf("authorize: %w", err)
	}
	if actor.TokenID == 0 || role == "" {
		actor.Roles.remember(workspaceID, role)
		return role, nil
	}
	scope, err := c.tokenScope(ctx, actor)
	if err != nil {
		return "", err
	}
	if !scope.Covers(workspaceID) {
		return "", &ForbiddenError{Workspace: workspaceID, Need: models.RoleReader, Token: true, OutOfScope: true}
	}
	role = role.Min(scope.Role)
	actor.Roles.remember(workspaceID, role)
	return role, nil
}

// Authorize is the one authorisation function of Sked (SPEC §13.4): it
// returns nil when actor may do what needs role need in workspaceID, and
// a *ForbiddenError otherwise. Every write method of Catalog calls it
// before it writes (through allow); handlers call it for reads (need
// reader) so that pages, fragments, the CLI and the APIs decide alike.
func (c *Catalog) Authorize(ctx context.Context, actor Actor, workspaceID string, need models.Role) error {
	role, err := c.RoleOf(ctx, actor, workspaceID)
	if err != nil {
		return err
	}
	if role.Includes(need) {
		return nil
	}
	return &ForbiddenError{Workspace: workspaceID, Need: need, Have: role, Token: actor.TokenID != 0}
}

// allow authorizes the change ch before it is made: actor needs
// NeedFor(ch.Op) in ch.WorkspaceID.
func (c *Catalog) allow(ctx context.Context, actor Actor, ch Change) error {
	return c.Authorize(ctx, actor, ch.WorkspaceID, NeedFor(ch.Op))
}

// tokenScope is the scope of actor's API token. Tokens go with their user
// (ON DELETE CASCADE): a token without a row belongs to no member any
// more and never gets this far in the server; callers naming no stored
// token (tests) get the zero scope, which caps nothing.
func (c *Catalog) tokenScope(ctx context.Context, actor Actor) (models.TokenScope, error) {
	scope, err := c.store.TokenScopeOf(ctx, actor.TokenID)
	if errors.Is(err, models.ErrNotFound) {
		return models.TokenScope{Role: models.RoleOwner}, nil
	}
	if err != nil {
		return models.TokenScope{}, fmt.Errorf("authorize: %w", err)
	}
	return scope, nil
}
