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
// authenticates again.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	TokenHash  []byte
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
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
	if err := s.db.WithContext(ctx).Create(t).Error; err != nil {
		return nil, "", translate("models: create token", err)
	}
	return t, token, nil
}

// AuthenticateToken returns the user a token belongs to and records its
// use. An unknown or revoked token, or one whose user is disabled, gives
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
	var row struct {
		APIToken
		Disabled bool
	}
	err := s.db.WithContext(ctx).Table("api_tokens t").
		Select("t.*, u.disabled").
		Joins("JOIN users u ON u.id = t.user_id").
		Where("t.token_hash = ? AND t.revoked_at IS NULL", hashToken(token)).
		Take(&row).Error
	if err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, 0, fmt.Errorf("models: authenticate token: %w", ErrBadCredentials)
		}
		return nil, 0, translate("models: authenticate token", err)
	}
	if row.Disabled {
		return nil, 0, fmt.Errorf("models: authenticate token: %w", ErrBadCredentials)
	}
	now := time.Now().UTC()
	if row.LastUsedAt == nil || now.Sub(*row.LastUsedAt) >= lastUsedResolution {
		err := s.db.WithContext(ctx).Model(&APIToken{}).Where("id = ?", row.ID).Update("last_used_at", now).Error
		if err != nil {
			return nil, 0, translate("models: authenticate token: record use", err)
		}
	}
	user, err := s.UserByID(ctx, row.UserID)
	return user, row.ID, err
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
