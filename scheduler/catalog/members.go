package catalog

import (
	"context"
	"encoding/json"
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
	rec := &record{Change: ch}
	var m *models.Member
	var added bool
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		m, added, err = tc.putMember(ctx, workspaceID, username, role, rec)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return m, added, nil
}

// putMember is PutMember in the write's transaction.
func (c *Catalog) putMember(ctx context.Context, workspaceID, username string, role models.Role, rec *record) (*models.Member, bool, error) {
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
		rec.Before = roleJSON(string(cur))
	}
	rec.Member, rec.After = user.Username, roleJSON(string(role))
	return m, added, nil
}

// RemoveMember removes userID from workspaceID; the last owner stays
// (models.ErrLastOwner, 409).
func (c *Catalog) RemoveMember(ctx context.Context, actor Actor, isAdmin bool, workspaceID string, userID int64, username string) error {
	ch := Change{Op: OpRemoveMember, WorkspaceID: workspaceID, Member: username}
	if err := c.allowMembers(ctx, actor, isAdmin, ch); err != nil {
		return err
	}
	rec := &record{Change: ch}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		if cur, err := tc.store.RoleIn(ctx, workspaceID, userID); err == nil && cur != "" {
			rec.Before = roleJSON(string(cur))
		}
		return tc.store.RemoveMember(ctx, workspaceID, userID)
	})
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
	rec := &record{Change: ch}
	var m *models.Member
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if m, err = tc.store.AddMember(ctx, workspaceID, username, role); err != nil {
			return err
		}
		rec.Member, rec.Detail, rec.After = m.Username, m.Role, roleJSON(m.Role)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// roleJSON is a member's role as a definition for the audit log's
// difference: {"role": "…"}.
func roleJSON(role string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"role": role})
	return b
}
