package catalog

import (
	"context"
	"encoding/json"

	"sked/models"
)

// Account writes: users, passwords and API tokens. They belong to no
// workspace, so their audit entries have none; who may make them is
// decided before (administrators for users, each user for their own
// password and tokens: the route table and the CLI), so these methods
// check no role. Each is the store's write in a transaction with its
// audit entry (audited); passwords and token secrets never reach the
// entry.
const (
	OpCreateUser    Op = models.AuditUserCreate
	OpDisableUser   Op = models.AuditUserDisable
	OpEnableUser    Op = models.AuditUserEnable
	OpSetPassword   Op = models.AuditUserPassword
	OpCreateToken   Op = models.AuditTokenCreate
	OpRevokeToken   Op = models.AuditTokenRevoke
	passwordChanged    = "changed by the user"
	passwordReset      = "reset by an administrator"
	// disabledKey is the key of a user's disabled flag in the audit
	// log's difference.
	disabledKey = "disabled"
)

// CreateUser creates the user in, for actor (an administrator, or the CLI).
// Errors are the store's (a *problem.List for a bad or taken name).
func (c *Catalog) CreateUser(ctx context.Context, actor Actor, in models.NewUser) (*models.User, error) {
	rec := &record{Change: Change{Op: OpCreateUser, User: in.Username}}
	var u *models.User
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if u, err = tc.store.CreateUser(ctx, in); err != nil {
			return err
		}
		rec.User, rec.After = u.Username, jsonOf(map[string]any{"admin": u.IsAdmin})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// SetUserDisabled disables (or enables) user, for actor; disabling ends
// the user's sessions (see models.Store.SetUserDisabled).
func (c *Catalog) SetUserDisabled(ctx context.Context, actor Actor, user *models.User, disabled bool) error {
	op := OpEnableUser
	if disabled {
		op = OpDisableUser
	}
	rec := &record{Change: Change{Op: op, User: user.Username},
		Before: jsonOf(map[string]bool{disabledKey: user.Disabled}), After: jsonOf(map[string]bool{disabledKey: disabled})}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		return tc.store.SetUserDisabled(ctx, user.ID, disabled)
	})
}

// ResetPassword sets user's password, for actor (an administrator).
func (c *Catalog) ResetPassword(ctx context.Context, actor Actor, user *models.User, password string) error {
	rec := &record{Change: Change{Op: OpSetPassword, User: user.Username, Detail: passwordReset}}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		return tc.store.ResetPassword(ctx, user.ID, password)
	})
}

// ChangePassword sets actor's own password when current is right (see
// models.Store.ChangePassword).
func (c *Catalog) ChangePassword(ctx context.Context, actor Actor, current, password string) error {
	rec := &record{Change: Change{Op: OpSetPassword, User: actor.UserName, Detail: passwordChanged}}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		return tc.store.ChangePassword(ctx, actor.UserID, current, password)
	})
}

// CreateToken issues the API token name of user with scope, for actor
// (the user, or the CLI), and returns it with its secret (shown once,
// never in the audit log).
func (c *Catalog) CreateToken(ctx context.Context, actor Actor, user *models.User, name string, scope models.TokenScope) (*models.APIToken, string, error) {
	rec := &record{Change: Change{Op: OpCreateToken, User: user.Username, Token: name}}
	var tok *models.APIToken
	var secret string
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if tok, secret, err = tc.store.CreateScopedToken(ctx, user.ID, name, scope); err != nil {
			return err
		}
		after := map[string]any{"role": scope.Role, "workspaces": scope.Workspaces}
		if !scope.ExpiresAt.IsZero() {
			after["expiresAt"] = scope.ExpiresAt.UTC()
		}
		rec.Token, rec.After = tok.Name, jsonOf(after)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return tok, secret, nil
}

// RevokeToken revokes the token id of userID, for actor; another user's
// token or an unknown id is models.ErrNotFound.
func (c *Catalog) RevokeToken(ctx context.Context, actor Actor, user *models.User, id int64) error {
	rec := &record{Change: Change{Op: OpRevokeToken, User: user.Username}}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		tokens, err := tc.store.TokensOf(ctx, user.ID)
		if err != nil {
			return err
		}
		for _, t := range tokens {
			if t.ID == id {
				rec.Token = t.Name
			}
		}
		return tc.store.RevokeToken(ctx, user.ID, id)
	})
}

// jsonOf is v as JSON (for the audit log's Before and After).
func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// The sign-ins and sign-outs of the audit log.
const (
	OpSignIn  Op = "signin"
	OpSignOut Op = "signout"
)

// SignedIn records that actor signed in, by how ("password", "OpenID
// Connect"); the session itself is the session store's.
func (c *Catalog) SignedIn(ctx context.Context, actor Actor, how string) error {
	rec := &record{Change: Change{Op: OpSignIn, User: actor.UserName, Detail: how}}
	return c.audited(ctx, actor, rec, func(*Catalog) error { return nil })
}

// SignedOut records that actor signed out.
func (c *Catalog) SignedOut(ctx context.Context, actor Actor) error {
	rec := &record{Change: Change{Op: OpSignOut, User: actor.UserName}}
	return c.audited(ctx, actor, rec, func(*Catalog) error { return nil })
}
