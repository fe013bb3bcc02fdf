package catalog

import (
	"context"
	"errors"
	"fmt"

	"sked/models"
	"sked/models/problem"
)

// allowMembers authorizes a change of membership: owners of the
// workspace, and instance administrators who are members of it and sign
// in on a page or the command line (as before roles existed; an API
// token's role still caps them).
func (c *Catalog) allowMembers(ctx context.Context, actor Actor, isAdmin bool, ch Change) error {
	err := c.allow(ctx, actor, ch)
	var fe *ForbiddenError
	if isAdmin && actor.TokenID == 0 && errors.As(err, &fe) && fe.Have != "" {
		return nil
	}
	return err
}

// PutMember gives the user named username the role in workspaceID,
// adding the user as a member when not one yet; it reports whether the
// user was added. Demoting the last owner gives models.ErrLastOwner (409);
// an unknown user a *models.ValidationError on "username".
func (c *Catalog) PutMember(ctx context.Context, actor Actor, isAdmin bool, workspaceID, username string, role models.Role) (*models.Member, bool, error) {
	ch := Change{Op: OpPutMember, WorkspaceID: workspaceID, Member: username, Detail: string(role)}
	if err := c.allowMembers(ctx, actor, isAdmin, ch); err != nil {
		return nil, false, err
	}
	if !role.Valid() {
		return nil, false, &problem.List{Problems: []problem.Problem{{Path: "role", Message: "must be reader, operator, editor or owner"}}}
	}
	user, err := c.store.UserByName(ctx, username)
	if errors.Is(err, models.ErrNotFound) {
		return nil, false, &problem.List{Problems: []problem.Problem{{Path: "username", Message: fmt.Sprintf("%q is not a user of Sked", username)}}}
	}
	if err != nil {
		return nil, false, fmt.Errorf("put member: %w", err)
	}
	cur, err := c.store.RoleIn(ctx, workspaceID, user.ID)
	if err != nil {
		return nil, false, fmt.Errorf("put member: %w", err)
	}
	added := cur == ""
	var m *models.Member
	if added {
		if m, err = c.store.AddMember(ctx, workspaceID, user.Username, string(role)); err != nil {
			return nil, false, err
		}
	} else {
		if err := c.store.SetMemberRole(ctx, workspaceID, user.ID, role); err != nil {
			return nil, false, err
		}
		m = &models.Member{UserID: user.ID, Username: user.Username, Role: string(role), IsAdmin: user.IsAdmin, Disabled: user.Disabled}
	}
	ch.Member = user.Username
	c.changed(ctx, actor, ch)
	return m, added, nil
}

// RemoveMember removes userID from workspaceID; the last owner stays
// (models.ErrLastOwner, 409).
func (c *Catalog) RemoveMember(ctx context.Context, actor Actor, isAdmin bool, workspaceID string, userID int64, username string) error {
	ch := Change{Op: OpRemoveMember, WorkspaceID: workspaceID, Member: username}
	if err := c.allowMembers(ctx, actor, isAdmin, ch); err != nil {
		return err
	}
	if err := c.store.RemoveMember(ctx, workspaceID, userID); err != nil {
		return err
	}
	c.changed(ctx, actor, ch)
	return nil
}

// AddMember adds the user named username to workspaceID with role (a
// Role's name, "member" meaning editor), as the members page does: a user
// who already is a member, an unknown user or role is a
// *models.ValidationError (models.Store.AddMember).
func (c *Catalog) AddMember(ctx context.Context, actor Actor, isAdmin bool, workspaceID, username, role string) (*models.Member, error) {
	ch := Change{Op: OpPutMember, WorkspaceID: workspaceID, Member: username, Detail: role}
	if err := c.allowMembers(ctx, actor, isAdmin, ch); err != nil {
		return nil, err
	}
	m, err := c.store.AddMember(ctx, workspaceID, username, role)
	if err != nil {
		return nil, err
	}
	ch.Member, ch.Detail = m.Username, m.Role
	c.changed(ctx, actor, ch)
	return m, nil
}
