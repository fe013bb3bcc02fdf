package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Identity links a user to a person at an OpenID Connect provider: the
// provider's issuer URL and its subject ("sub") for that person.
type Identity struct {
	Issuer       string
	Subject      string
	UserID       int64
	Email        string
	CreatedAt    time.Time
	LastSignInAt time.Time
}

// TableName tells GORM the table.
func (Identity) TableName() string { return "user_identities" }

// ExternalSignIn is the input of SignInExternal: who the provider says
// signed in, and what the role map grants them.
type ExternalSignIn struct {
	// Issuer and Subject name the person; both are required.
	Issuer, Subject string
	// Email is the provider's (verified or not) email; PreferredName its
	// preferred_username. Both only suggest the name of a new user.
	Email, PreferredName string
	// Admin makes the user an instance administrator (never the reverse).
	Admin bool
	// Workspaces are the workspaces the user becomes a member of; ones
	// that do not exist are skipped (Skipped lists them).
	Workspaces []string
	// Roles are the roles the role map grants per workspace of Workspaces;
	// a workspace without one gets RoleMember (editor), as password users
	// do.
	Roles map[string]string
	// Now is the time of the sign-in.
	Now time.Time
}

// ExternalSignInResult is what SignInExternal did.
type ExternalSignInResult struct {
	User *User
	// Created is true when the user was created by this sign-in.
	Created bool
	// Skipped lists the workspaces of ExternalSignIn.Workspaces that do
	// not exist.
	Skipped []string
	// MadeAdmin is true when this sign-in made the user an instance
	// administrator.
	MadeAdmin bool
	// Granted are the memberships this sign-in created or raised, in the
	// order of ExternalSignIn.Workspaces (for the audit log).
	Granted []MembershipGrant
}

// MembershipGrant is a membership a sign-in created or raised: the user's
// Role in WorkspaceID, and the role they had before ("" for none).
type MembershipGrant struct {
	WorkspaceID  string
	Role, Before string
}

// SignInExternal finds or creates the user of an OpenID Connect identity,
// in one transaction. A new user gets a name from the email or the
// preferred name (made unique with a number), no password (an empty hash
// matches none) and, like users made by CreateUser, the `default`
// workspace exists afterwards. The user is then granted what in asks
// (administrator, memberships with the mapped roles): grants only add (a
// higher mapped role raises a membership, a lower one leaves it), so that a
// role given in Sked is not taken away by the next sign-in. A disabled
// user gives ErrUserDisabled and changes nothing. Two first sign-ins of
// one person at once create one user: the loser of the race retries once
// and finds it.
func (s *Store) SignInExternal(ctx context.Context, in ExternalSignIn) (*ExternalSignInResult, error) {
	out, err := s.signInExternal(ctx, in)
	if errors.Is(err, ErrConflict) {
		out, err = s.signInExternal(ctx, in)
	}
	return out, err
}

func (s *Store) signInExternal(ctx context.Context, in ExternalSignIn) (*ExternalSignInResult, error) {
	const op = "models: external sign-in"
	if in.Issuer == "" || in.Subject == "" {
		return nil, fmt.Errorf("%s: issuer and subject are required", op)
	}
	var out ExternalSignInResult
	err := s.inTx(ctx, op, func(tx *gorm.DB) error {
		out = ExternalSignInResult{}
		var id Identity
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("issuer = ? AND subject = ?", in.Issuer, in.Subject).Take(&id).Error
		var user User
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			created, err := createExternalUserTx(tx, in)
			if err != nil {
				return err
			}
			user, out.Created = *created, true
		case err != nil:
			return translate(op, err)
		default:
			if err := tx.Take(&user, id.UserID).Error; err != nil {
				return translate(op, err)
			}
			if user.Disabled {
				return fmt.Errorf("%s: %w", op, ErrUserDisabled)
			}
			err := tx.Model(&Identity{}).Where("issuer = ? AND subject = ?", in.Issuer, in.Subject).
				Updates(map[string]any{"email": truncateEmail(in.Email), "last_sign_in_at": in.Now.UTC()}).Error
			if err != nil {
				return translate(op, err)
			}
		}
		if in.Admin && !user.IsAdmin {
			err := tx.Model(&User{}).Where("id = ?", user.ID).
				Updates(map[string]any{"is_admin": true, "updated_at": in.Now.UTC()}).Error
			if err != nil {
				return translate(op+": admin", err)
			}
			user.IsAdmin, out.MadeAdmin = true, true
		}
		skipped, granted, err := grantMembershipsTx(tx, user.ID, in.Workspaces, in.Roles)
		if err != nil {
			return err
		}
		out.User, out.Skipped, out.Granted = &user, skipped, granted
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// createExternalUserTx creates the user and the identity of in.
func createExternalUserTx(tx *gorm.DB, in ExternalSignIn) (*User, error) {
	const op = "models: external sign-in: create user"
	name, err := freeUsernameTx(tx, in)
	if err != nil {
		return nil, err
	}
	user := &User{Username: name, PasswordHash: "", CreatedAt: in.Now.UTC(), UpdatedAt: in.Now.UTC()}
	if err := tx.Create(user).Error; err != nil {
		return nil, translate(op, err)
	}
	id := Identity{Issuer: in.Issuer, Subject: in.Subject, UserID: user.ID, Email: truncateEmail(in.Email),
		CreatedAt: in.Now.UTC(), LastSignInAt: in.Now.UTC()}
	if err := tx.Create(&id).Error; err != nil {
		return nil, translate(op+": identity", err)
	}
	if err := ensureDefaultWorkspace(tx); err != nil {
		return nil, err
	}
	return user, nil
}

// grantMembershipsTx makes userID a member of each existing workspace of
// ids (keeping a membership it has, raising it to a higher mapped role)
// and returns the ones that do not exist and the memberships it created
// or raised.
func grantMembershipsTx(tx *gorm.DB, userID int64, ids []string, roles map[string]string) ([]string, []MembershipGrant, error) {
	const op = "models: external sign-in: memberships"
	var skipped []string
	var granted []MembershipGrant
	for _, ws := range ids {
		var n int64
		if err := tx.Model(&Workspace{}).Where("id = ?", ws).Count(&n).Error; err != nil {
			return nil, nil, translate(op, err)
		}
		if n == 0 {
			skipped = append(skipped, ws)
			continue
		}
		role := RoleMember
		if r, err := ParseRole(roles[ws]); roles[ws] != "" && err == nil {
			role = string(r)
		}
		var before []string
		if err := tx.Raw(`SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ? FOR UPDATE`, ws, userID).
			Scan(&before).Error; err != nil {
			return nil, nil, translate(op, err)
		}
		var changed []string
		err := tx.Raw(`INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, ?)
			ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role
			WHERE array_position(ARRAY['reader','operator','editor','owner'], memberships.role)
			    < array_position(ARRAY['reader','operator','editor','owner'], EXCLUDED.role)
			RETURNING role`, ws, userID, role).Scan(&changed).Error
		if err != nil {
			return nil, nil, translate(op, err)
		}
		if len(changed) > 0 {
			g := MembershipGrant{WorkspaceID: ws, Role: changed[0]}
			if len(before) > 0 {
				g.Before = before[0]
			}
			granted = append(granted, g)
		}
	}
	return skipped, granted, nil
}

var notUsernameChars = regexp.MustCompile(`[^A-Za-z0-9._@-]+`)

// freeUsernameTx returns the first name not taken among the email, the
// preferred name and the email's local part (each cleaned to the user
// name rules), then the last of these with "-2" … "-99" appended, then
// "user-<n>".
func freeUsernameTx(tx *gorm.DB, in ExternalSignIn) (string, error) {
	var bases []string
	local, _, _ := strings.Cut(in.Email, "@")
	for _, c := range []string{in.Email, in.PreferredName, local} {
		c = strings.Trim(notUsernameChars.ReplaceAllString(c, "-"), "-._@")
		if len(c) > 60 {
			c = c[:60]
		}
		if c != "" && usernamePattern.MatchString(c) {
			bases = append(bases, c)
		}
	}
	if len(bases) == 0 {
		bases = []string{"user"}
	}
	var candidates []string
	candidates = append(candidates, bases...)
	for i := 2; i < 100; i++ {
		candidates = append(candidates, fmt.Sprintf("%s-%d", bases[len(bases)-1], i))
	}
	for _, c := range candidates {
		var n int64
		if err := tx.Model(&User{}).Where("lower(username) = lower(?)", c).Count(&n).Error; err != nil {
			return "", translate("models: external sign-in: user name", err)
		}
		if n == 0 {
			return c, nil
		}
	}
	return fmt.Sprintf("user-%d", in.Now.UnixNano()), nil
}

func truncateEmail(e string) string {
	if len(e) > 320 {
		return ""
	}
	return e
}

// IdentitiesOf lists the identities of userID, oldest first.
func (s *Store) IdentitiesOf(ctx context.Context, userID int64) ([]Identity, error) {
	var out []Identity
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at, issuer, subject").Find(&out).Error; err != nil {
		return nil, translate("models: identities of user", err)
	}
	return out, nil
}
