package handlers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"sked/models"
)

// Defaults of the session lifetimes (Deps.SessionIdleTimeout and
// Deps.SessionMaxAge).
const (
	DefaultSessionIdleTimeout = 12 * time.Hour
	DefaultSessionMaxAge      = 14 * 24 * time.Hour
)

// Values keys that only the session store sets: the database row behind a
// signed-in session and its user. Their types keep them apart from the
// string keys the handlers use.
type (
	sessionRowKey  struct{}
	sessionUserKey struct{}
)

// sessionStore is a gorilla sessions.Store that keeps sessions in
// PostgreSQL (models.Store). The cookie holds only a random token of 43
// characters; the database keeps its SHA-256 with the user id and the
// session's CSRF token.
//
// A visitor who has not signed in gets a token too, but no row: their CSRF
// token is an HMAC of the token under the session secret, so that
// anonymous visits write nothing. Signing in always starts a new token
// (the old one is worth nothing after), and Options.MaxAge < 0 deletes
// the row. Flash messages (AddFlash) are kept in the row too, so only
// signed-in sessions keep them. It is safe for concurrent use.
type sessionStore struct {
	store    *models.Store
	clock    func() time.Time
	idle     time.Duration
	maxAge   time.Duration
	csrfKey  []byte
	secure   bool
	clientIP func(*http.Request) string
}

// Get returns the request's session; see New.
func (st *sessionStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return st.New(r, name)
}

// New returns the session of the request's cookie: a signed-in session
// when the token names a live one (recording its use), else an anonymous
// session with that token, or with a new token (IsNew) when the request
// has no well-formed cookie. Only a database failure is an error.
func (st *sessionStore) New(r *http.Request, name string) (*sessions.Session, error) {
	sess := sessions.NewSession(st, name)
	sess.Options = st.options(0)
	cookie, err := r.Cookie(name)
	if err != nil || !wellFormedToken(cookie.Value) {
		token, err := models.NewSessionToken()
		if err != nil {
			return sess, err
		}
		sess.ID, sess.IsNew = token, true
		sess.Values[keyCSRFToken] = st.anonymousCSRF(token)
		return sess, nil
	}
	sess.ID, sess.IsNew = cookie.Value, false
	row, user, err := st.store.UseSession(r.Context(), cookie.Value, models.SessionUse{
		Now:         st.clock(),
		IdleTimeout: st.idle,
		RemoteAddr:  st.clientIP(r),
		UserAgent:   r.UserAgent(),
	})
	switch {
	case errors.Is(err, models.ErrNotFound):
		sess.Values[keyCSRFToken] = st.anonymousCSRF(cookie.Value)
		return sess, nil
	case err != nil:
		return sess, err
	}
	sess.Values[keyUserID] = row.UserID
	sess.Values[keyCSRFToken] = row.CSRFToken
	if row.Flash != "" {
		var flashes []any
		for _, m := range strings.Split(row.Flash, "\n") {
			flashes = append(flashes, m)
		}
		sess.Values[flashKey] = flashes
	}
	sess.Values[sessionRowKey{}] = row
	sess.Values[sessionUserKey{}] = user
	return sess, nil
}

// Save writes sess: with Options.MaxAge < 0 it deletes the session and the
// cookie. With a user id and the row's CSRF token there is nothing to
// write; with a user id but no row, another user's row or a new CSRF token
// (signIn), it ends the old row, if any, and starts a new row with a new
// token and cookie. Without a user id it ends the row, if any, and sets
// the cookie of a new anonymous session.
func (st *sessionStore) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	ctx := r.Context()
	row, _ := sess.Values[sessionRowKey{}].(*models.Session)
	if sess.Options != nil && sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if err := st.store.EndSessionToken(ctx, sess.ID); err != nil {
				return err
			}
		}
		delete(sess.Values, sessionRowKey{})
		delete(sess.Values, sessionUserKey{})
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	uid, signedIn := sess.Values[keyUserID].(int64)
	csrf, _ := sess.Values[keyCSRFToken].(string)
	switch {
	case signedIn && row != nil && row.UserID == uid && csrf == row.CSRFToken:
		if flash := flashText(sess); flash != row.Flash {
			if err := st.store.SetSessionFlash(ctx, row.ID, flash); err != nil {
				return err
			}
			row.Flash = flash
		}
		return nil
	case signedIn:
		if row != nil {
			if err := st.store.EndSessionToken(ctx, sess.ID); err != nil {
				return err
			}
		}
		if len(csrf) < 32 {
			csrf = newToken()
			sess.Values[keyCSRFToken] = csrf
		}
		created, token, err := st.store.CreateSession(ctx, models.NewSession{
			UserID: uid, CSRFToken: csrf, RemoteAddr: st.clientIP(r), UserAgent: r.UserAgent(),
			Now: st.clock(), MaxAge: st.maxAge,
		})
		if err != nil {
			return err
		}
		sess.ID, sess.IsNew = token, false
		sess.Values[sessionRowKey{}] = created
		sess.Options = st.options(int(st.maxAge / time.Second))
		http.SetCookie(w, sessions.NewCookie(sess.Name(), token, sess.Options))
		return nil
	}
	if row != nil {
		if err := st.store.EndSessionToken(ctx, sess.ID); err != nil {
			return err
		}
		delete(sess.Values, sessionRowKey{})
		delete(sess.Values, sessionUserKey{})
		token, err := models.NewSessionToken()
		if err != nil {
			return err
		}
		sess.ID, sess.IsNew = token, true
	}
	sess.Values[keyCSRFToken] = st.anonymousCSRF(sess.ID)
	if sess.IsNew {
		http.SetCookie(w, sessions.NewCookie(sess.Name(), sess.ID, sess.Options))
		sess.IsNew = false
	}
	return nil
}

// flashKey is where gorilla's AddFlash and Flashes keep messages.
const flashKey = "_flash"

// flashText is the session's flash messages, one a line.
func flashText(sess *sessions.Session) string {
	flashes, _ := sess.Values[flashKey].([]any)
	var msgs []string
	for _, f := range flashes {
		if m, ok := f.(string); ok && m != "" {
			msgs = append(msgs, strings.ReplaceAll(m, "\n", " "))
		}
	}
	return strings.Join(msgs, "\n")
}

// options are the cookie's attributes: HttpOnly, SameSite=Lax, Secure
// behind https; maxAge in seconds (0: until the browser closes).
func (st *sessionStore) options(maxAge int) *sessions.Options {
	return &sessions.Options{
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   st.secure,
		SameSite: http.SameSiteLaxMode,
	}
}

// anonymousCSRF is the CSRF token of a visitor who has not signed in: an
// HMAC of their session token, which only this server can compute.
func (st *sessionStore) anonymousCSRF(token string) string {
	mac := hmac.New(sha256.New, st.csrfKey)
	mac.Write([]byte("sked anonymous csrf\x00"))
	mac.Write([]byte(token))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// wellFormedToken reports whether v looks like a session token (43
// base64url characters), so that junk cookies cost no query.
func wellFormedToken(v string) bool {
	if len(v) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil
}

// clientIPExtractor returns how the client's address is found: the
// connection's peer, unless the peer is one of trusted (reverse proxies),
// whose X-Forwarded-For (or, without one, X-Real-IP) is then believed, up
// to the nearest address that is not itself trusted. Loopback, link-local
// and private peers are trusted only when listed.
func clientIPExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{
			IP:   net.IP(p.Addr().AsSlice()),
			Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen()),
		}))
	}
	xff := echo.ExtractIPFromXFFHeader(opts...)
	realIP := echo.ExtractIPFromRealIPHeader(opts...)
	return func(r *http.Request) string {
		if len(r.Header.Values(echo.HeaderXForwardedFor)) > 0 {
			return xff(r)
		}
		return realIP(r)
	}
}

// currentSessionID is the database id of the request's signed-in session,
// or 0.
func currentSessionID(c echo.Context) int64 {
	if sess := session(c); sess != nil {
		if row, ok := sess.Values[sessionRowKey{}].(*models.Session); ok {
			return row.ID
		}
	}
	return 0
}
