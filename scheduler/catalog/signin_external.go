package catalog

import (
	"context"

	"sked/models"
)

// ViaOIDC is how a sign-in by OpenID Connect is named in the audit log
// (the Detail of its sign-in entry).
const ViaOIDC = "OpenID Connect"

// SignInExternal signs in the person an OpenID Connect provider vouched
// for (models.Store.SignInExternal: the user is found or created, and
// granted what the role map gives) and audits it in the same
// transaction (SPEC §13.5), each entry by the user who signed in, at
// actor's address: the user's creation (user.create, with whether they are
// an administrator), each membership created or raised (member.put, with
// the role before and after), and the sign-in itself (signin, naming an
// administrator role the sign-in granted). The provider decides, so no
// role is checked. Every entry passes changed. Errors
// are the store's (models.ErrUserDisabled for a disabled user).
func (c *Catalog) SignInExternal(ctx context.Context, actor Actor, in models.ExternalSignIn) (*models.ExternalSignInResult, error) {
	rec := &record{}
	var res *models.ExternalSignInResult
	var by Actor
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if res, err = tc.store.SignInExternal(ctx, in); err != nil {
			return err
		}
		u := res.User
		by = Actor{UserID: u.ID, UserName: u.Username, Addr: actor.Addr, Via: actor.Via}
		rec.By = &by
		if res.Created {
			rec.Parts = append(rec.Parts, record{Change: Change{Op: OpCreateUser, User: u.Username, Detail: ViaOIDC},
				After: jsonOf(map[string]any{"admin": u.IsAdmin})})
		}
		for _, g := range res.Granted {
			part := record{Change: Change{Op: OpPutMember, WorkspaceID: g.WorkspaceID, Member: u.Username, Detail: g.Role},
				After: roleJSON(g.Role)}
			if g.Before != "" {
				part.Before = roleJSON(g.Before)
			}
			rec.Parts = append(rec.Parts, part)
		}
		signin := record{Change: Change{Op: OpSignIn, User: u.Username, Detail: ViaOIDC}}
		if res.MadeAdmin && !res.Created {
			signin.Detail += ": made an administrator by the role map"
			signin.Before, signin.After = jsonOf(map[string]any{"admin": false}), jsonOf(map[string]any{"admin": true})
		}
		rec.Parts = append(rec.Parts, signin)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, part := range rec.Parts {
		c.changed(ctx, by, part.Change)
	}
	return res, nil
}
