package models

import (
	"context"
	"fmt"
	"sked/models/problem"
	"strings"
	"time"
)

// TokenScope is what an API token may do (SPEC §13.4): at most Role, in
// Workspaces (nil: every workspace of its user), until ExpiresAt (zero:
// for ever). The rights it gives in a workspace are the lower of Role and
// its user's role there at the time of the request, so a token never
// gains rights when its user's role rises. The zero TokenScope is the
// scope of tokens made before scopes existed: every workspace, as owner.
type TokenScope struct {
	Role       Role
	Workspaces []string
	ExpiresAt  time.Time
}

func (sc TokenScope) check(now time.Time) error {
	v := &problem.List{}
	if !sc.Role.Valid() {
		v.Add("role", "must be reader, operator, editor or owner")
	}
	for _, ws := range sc.Workspaces {
		if !ValidWorkspaceID(ws) {
			v.Add("workspaces", fmt.Sprintf("%q is not a workspace id", ws))
		}
	}
	if len(sc.Workspaces) > 100 {
		v.Add("workspaces", "may name at most 100 workspaces")
	}
	if !sc.ExpiresAt.IsZero() && !sc.ExpiresAt.After(now) {
		v.Add("expires", "must be in the future")
	}
	return v.OrNil()
}

func (sc TokenScope) apply(t *APIToken) {
	t.Role = string(sc.Role)
	if len(sc.Workspaces) > 0 {
		joined := strings.Join(sc.Workspaces, " ")
		t.Workspaces = &joined
	}
	if !sc.ExpiresAt.IsZero() {
		exp := sc.ExpiresAt.UTC()
		t.ExpiresAt = &exp
	}
}

// Scope returns the token's scope.
func (t *APIToken) Scope() TokenScope {
	sc := TokenScope{Role: Role(t.Role)}
	if t.Workspaces != nil {
		sc.Workspaces = strings.Fields(*t.Workspaces)
	}
	if t.ExpiresAt != nil {
		sc.ExpiresAt = *t.ExpiresAt
	}
	return sc
}

// Covers reports whether the scope includes workspaceID (compared
// case-insensitively, as ARM subscription ids are).
func (sc TokenScope) Covers(workspaceID string) bool {
	if sc.Workspaces == nil {
		return true
	}
	for _, ws := range sc.Workspaces {
		if strings.EqualFold(ws, workspaceID) {
			return true
		}
	}
	return false
}

// TokenScopeOf returns the scope of token id; ErrNotFound when there is
// none.
func (s *Store) TokenScopeOf(ctx context.Context, id int64) (TokenScope, error) {
	var t APIToken
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&t).Error; err != nil {
		return TokenScope{}, translate("models: token scope", err)
	}
	return t.Scope(), nil
}
