package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// SessionSeenResolution is how stale Session.LastSeenAt may be: a session
// used many times a minute is written at most once a minute, so the idle
// timeout may end a session up to a minute early.
const SessionSeenResolution = time.Minute

// Limits of the client details kept with a session.
const (
	maxSessionAddr      = 64
	maxSessionUserAgent = 512
)

// Session is a signed-in browser. The browser's cookie holds a random
// token; only its SHA-256 (TokenHash) is stored. The session ends when it
// is deleted (sign-out, password change, …), at ExpiresAt (its absolute
// lifetime), or when it has not been seen for the idle timeout.
type Session struct {
	ID        int64
	TokenHash []byte
	UserID    int64
	// CSRFToken is the token every state-changing request of the session
	// must carry.
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	// RemoteAddr is the client address last seen (see
	// SessionSeenResolution); UserAgent the browser's User-Agent header.
	RemoteAddr string
	UserAgent  string
	// Flash holds messages for the next page (after a redirect), one a
	// line; "" when there are none.
	Flash string
}

// TableName tells GORM the table.
func (Session) TableName() string { return "sessions" }

// MaxSessionFlash is the most bytes of messages a session keeps for the
// next page; SetSessionFlash cuts longer ones.
const MaxSessionFlash = 4000

// NewSession is the input of CreateSession.
type NewSession struct {
	UserID    int64
	CSRFToken string
	// RemoteAddr and UserAgent describe the client; they are cut to 64 and
	// 512 bytes, and invalid UTF-8 or control characters are dropped.
	RemoteAddr string
	UserAgent  string
	// Now is when the session starts; MaxAge (positive) its absolute
	// lifetime.
	Now    time.Time
	MaxAge time.Duration
}

// SessionUse describes one request of a session: when it happens, the idle
// timeout in force and the client it comes from.
type SessionUse struct {
	Now         time.Time
	IdleTimeout time.Duration
	RemoteAddr  string
	UserAgent   string
}

// hashSessionToken is the stored form of a session token.
func hashSessionToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// NewSessionToken returns a new random session token: 32 bytes, base64url
// without padding (43 characters).
func NewSessionToken() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("models: new session token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// cleanClientText makes s safe to store: valid UTF-8 without control
// characters, at most max bytes.
func cleanClientText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return cutUTF8(s, max)
}

// cutUTF8 cuts valid UTF-8 s to at most max bytes, at a rune boundary.
func cutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// CreateSession starts a session for in.UserID and returns it with its
// token, which is not stored (only its hash is) and goes into the cookie.
func (s *Store) CreateSession(ctx context.Context, in NewSession) (*Session, string, error) {
	if in.MaxAge <= 0 {
		return nil, "", errors.New("models: create session: the maximum age must be positive")
	}
	token, err := NewSessionToken()
	if err != nil {
		return nil, "", err
	}
	now := in.Now.UTC()
	sess := &Session{
		TokenHash:  hashSessionToken(token),
		UserID:     in.UserID,
		CSRFToken:  in.CSRFToken,
		CreatedAt:  now,
		LastSeenAt: now,
		ExpiresAt:  now.Add(in.MaxAge),
		RemoteAddr: cleanClientText(in.RemoteAddr, maxSessionAddr),
		UserAgent:  cleanClientText(in.UserAgent, maxSessionUserAgent),
	}
	if err := s.db.WithContext(ctx).Create(sess).Error; err != nil {
		return nil, "", translate("models: create session", err)
	}
	return sess, token, nil
}

// UseSession returns the live session with this token and its user, and
// records the use (time, client address and browser) when the last one
// recorded is SessionSeenResolution or more ago. An unknown token gives
// ErrNotFound; so does a session past its absolute end, idle for
// use.IdleTimeout or longer, or whose user is disabled: such a session is
// deleted on the way.
func (s *Store) UseSession(ctx context.Context, token string, use SessionUse) (*Session, *User, error) {
	db := s.db.WithContext(ctx)
	var sess Session
	if err := db.Where("token_hash = ?", hashSessionToken(token)).Take(&sess).Error; err != nil {
		return nil, nil, translate("models: use session", err)
	}
	var user User
	err := db.Take(&user, sess.UserID).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, translate("models: use session: user", err)
	}
	now := use.Now.UTC()
	if err != nil || user.Disabled || !sessionLive(sess, now, use.IdleTimeout) {
		if err := db.Where("id = ?", sess.ID).Delete(&Session{}).Error; err != nil {
			return nil, nil, translate("models: use session: delete ended session", err)
		}
		return nil, nil, fmt.Errorf("models: use session: %w", ErrNotFound)
	}
	if now.Sub(sess.LastSeenAt) >= SessionSeenResolution {
		sess.LastSeenAt = now
		sess.RemoteAddr = cleanClientText(use.RemoteAddr, maxSessionAddr)
		sess.UserAgent = cleanClientText(use.UserAgent, maxSessionUserAgent)
		err := db.Model(&Session{}).Where("id = ?", sess.ID).Updates(map[string]any{
			"last_seen_at": sess.LastSeenAt, "remote_addr": sess.RemoteAddr, "user_agent": sess.UserAgent,
		}).Error
		if err != nil {
			return nil, nil, translate("models: use session: record use", err)
		}
	}
	return &sess, &user, nil
}

// sessionLive reports whether sess has neither reached its absolute end
// nor been idle for idle (zero or negative: no idle timeout) at now.
func sessionLive(sess Session, now time.Time, idle time.Duration) bool {
	if !now.Before(sess.ExpiresAt) {
		return false
	}
	return idle <= 0 || now.Sub(sess.LastSeenAt) < idle
}

// SessionsOf lists the live sessions of userID at now (see UseSession),
// the most recently seen first.
func (s *Store) SessionsOf(ctx context.Context, userID int64, now time.Time, idle time.Duration) ([]Session, error) {
	q := s.db.WithContext(ctx).Where("user_id = ? AND expires_at > ?", userID, now.UTC())
	if idle > 0 {
		q = q.Where("last_seen_at > ?", now.UTC().Add(-idle))
	}
	var out []Session
	if err := q.Order("last_seen_at DESC, id DESC").Find(&out).Error; err != nil {
		return nil, translate("models: sessions of user", err)
	}
	return out, nil
}

// SetSessionFlash replaces the messages session id keeps for the next
// page (one a line, cut to MaxSessionFlash bytes; "" forgets them). An
// unknown id gives ErrNotFound.
func (s *Store) SetSessionFlash(ctx context.Context, id int64, flash string) error {
	flash = strings.ToValidUTF8(strings.ReplaceAll(flash, "\x00", ""), "")
	flash = cutUTF8(flash, MaxSessionFlash)
	res := s.db.WithContext(ctx).Model(&Session{}).Where("id = ?", id).Update("flash", flash)
	if res.Error != nil {
		return translate("models: set session flash", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: set session flash: %w", ErrNotFound)
	}
	return nil
}

// EndSessionToken deletes the session with this token (sign-out). An
// unknown token is not an error: the session is gone either way.
func (s *Store) EndSessionToken(ctx context.Context, token string) error {
	err := s.db.WithContext(ctx).Where("token_hash = ?", hashSessionToken(token)).Delete(&Session{}).Error
	return translate("models: end session", err)
}

// EndSession deletes session id of userID. Another user's session or an
// unknown id gives ErrNotFound.
func (s *Store) EndSession(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Delete(&Session{})
	if res.Error != nil {
		return translate("models: end session", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: end session: %w", ErrNotFound)
	}
	return nil
}

// EndSessionsOf deletes every session of userID except the session with
// id except (0: none is kept) and returns how many ended.
func (s *Store) EndSessionsOf(ctx context.Context, userID, except int64) (int64, error) {
	res := endSessionsTx(s.db.WithContext(ctx), userID, except)
	if res.Error != nil {
		return 0, translate("models: end sessions of user", res.Error)
	}
	return res.RowsAffected, nil
}

func endSessionsTx(tx *gorm.DB, userID, except int64) *gorm.DB {
	return tx.Where("user_id = ? AND id <> ?", userID, except).Delete(&Session{})
}

// PurgeSessions deletes the sessions that have ended by now: past their
// absolute end, or idle for idle or longer (zero or negative: no idle
// timeout). It returns how many it deleted.
func (s *Store) PurgeSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error) {
	q := s.db.WithContext(ctx)
	if idle > 0 {
		q = q.Where("expires_at <= ? OR last_seen_at <= ?", now.UTC(), now.UTC().Add(-idle))
	} else {
		q = q.Where("expires_at <= ?", now.UTC())
	}
	res := q.Delete(&Session{})
	if res.Error != nil {
		return 0, translate("models: purge sessions", res.Error)
	}
	return res.RowsAffected, nil
}
