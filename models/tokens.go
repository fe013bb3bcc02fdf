package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sked/models/problem"
	"strings"
	"time"

	"gorm.io/gorm"
)

// tokenPrefix starts every API token, so that a leaked token is easy to
// recognise (and to search for in code).
const tokenPrefix = "sked_"

// lastUsedResolution is how stale APIToken.LastUsedAt may be: a token used
// many times a minute is written at most once a minute.
const lastUsedResolution = time.Minute

// APIToken is a bearer token for the REST API. Only the SHA-256 of the
// token is stored; Prefix (its first characters) identifies it in lists.
// RevokedAt is set once the token is revoked; a revoked token never
// authenticates again. Role and Workspaces are its scope (TokenScope);
// ExpiresAt, when set, is when it stops authenticating.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	TokenHash  []byte
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// Role is the most the token may do in any workspace (a Role's name).
	Role string
	// Workspaces is the workspace ids the token covers, separated by
	// spaces; nil covers every workspace of its user.
	Workspaces *string
	ExpiresAt  *time.Time
}

// TableName tells GORM the table.
func (APIToken) TableName() string { return "api_tokens" }

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CreateToken issues a new API token named name (1 to 100 characters;
// empty means "api") for userID and returns the stored record and the
// token itself, which is not kept and cannot be shown again.
func (s *Store) CreateToken(ctx context.Context, userID int64, name string) (*APIToken, string, error) {
	return s.CreateScopedToken(ctx, userID, name, TokenScope{})
}

// CreateScopedToken is CreateToken with a scope: a role (empty means
// owner, capped at use by the user's role), the workspaces it covers
// (none: every workspace of the user) and an expiry (zero: none). A bad
// role, workspace id or a past expiry is a ValidationError.
func (s *Store) CreateScopedToken(ctx context.Context, userID int64, name string, scope TokenScope) (*APIToken, string, error) {
	if scope.Role == "" {
		scope.Role = RoleOwner
	}
	if err := scope.check(time.Now()); err != nil {
		return nil, "", err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "api"
	}
	if n := len([]rune(name)); n > 100 {
		return nil, "", &problem.List{Problems: []problem.Problem{{Path: "name", Message: fmt.Sprintf("is %d characters, over the maximum of 100", n)}}}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, "", fmt.Errorf("models: create token: %w", err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	t := &APIToken{UserID: userID, Name: name, TokenHash: hashToken(token), Prefix: token[:len(tokenPrefix)+6]}
	scope.apply(t)
	if err := s.db.WithContext(ctx).Create(t).Error; err != nil {
		return nil, "", translate("models: create token", err)
	}
	return t, token, nil
}

// AuthenticateToken returns the user a token belongs to and records its
// use. An unknown, revoked or expired token, or one whose user is disabled, gives
// ErrBadCredentials.
func (s *Store) AuthenticateToken(ctx context.Context, token string) (*User, error) {
	user, _, err := s.AuthenticateTokenID(ctx, token)
	return user, err
}

// AuthenticateTokenID is AuthenticateToken that also returns the token's
// id (who made a change names it).
func (s *Store) AuthenticateTokenID(ctx context.Context, token string) (*User, int64, error) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return nil, 0, fmt.Errorf("models: authenticate token: %w", ErrBadCredentials)
	}
	// The token and its user in one statement (the user's columns as
	// User reads them, the token's under names of their own).
	var row struct {
		User
		TokenID    int64
		LastUsedAt *time.Time
		ExpiresAt  *time.Time
	}
	err := s.db.WithContext(ctx).Table("api_tokens t").
		Select("u.*, t.id AS token_id, t.last_used_at, t.expires_at").
		Joins("JOIN users u ON u.id = t.user_id").
		Where("t.token_hash = ? AND t.revoked_at IS NULL", hashToken(token)).
		Take(&row).Error
	if err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, 0, fmt.Errorf("models: authenticate token: %w", ErrBadCredentials)
		}
		return nil, 0, translate("models: authenticate token", err)
	}
	now := time.Now().UTC()
	if row.Disabled || (row.ExpiresAt != nil && !now.Before(*row.ExpiresAt)) {
		return nil, 0, fmt.Errorf("models: authenticate token: %w", ErrBadCredentials)
	}
	if row.LastUsedAt == nil || now.Sub(*row.LastUsedAt) >= lastUsedResolution {
		err := s.db.WithContext(ctx).Model(&APIToken{}).Where("id = ?", row.TokenID).Update("last_used_at", now).Error
		if err != nil {
			return nil, 0, translate("models: authenticate token: record use", err)
		}
	}
	user := row.User
	return &user, row.TokenID, nil
}

// TokensOf lists the tokens of userID, newest first, revoked ones included.
func (s *Store) TokensOf(ctx context.Context, userID int64) ([]APIToken, error) {
	var out []APIToken
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC").Find(&out).Error
	if err != nil {
		return nil, translate("models: tokens of user", err)
	}
	return out, nil
}

// RevokeToken revokes the token id of userID. Revoking an already revoked
// token changes nothing; another user's token or an unknown id gives
// ErrNotFound.
func (s *Store) RevokeToken(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Model(&APIToken{}).
		Where("id = ? AND user_id = ?", id, userID).
		Update("revoked_at", gorm.Expr("coalesce(revoked_at, now())"))
	if res.Error != nil {
		return translate("models: revoke token", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: revoke token: %w", ErrNotFound)
	}
	return nil
}
