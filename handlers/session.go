package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// Session cookie name and the keys kept in it.
const (
	sessionName   = "sked_session"
	keyUserID     = "uid"
	keyCSRFToken  = "csrf"
	ctxSession    = "session"
	ctxUser       = "user"
	hxRequest     = "HX-Request"
	hxRedirect    = "HX-Redirect"
	csrfFormField = "csrf_token"
	csrfHeader    = "X-CSRF-Token"
)

// newToken returns 32 random bytes, base64url encoded.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// loadSession reads the session cookie (a missing or tampered one gives a
// fresh session), makes sure it holds a CSRF token, and loads the signed-in
// user, if any, into the context. A user who was deleted or disabled since
// signing in is signed out.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, _ := s.sessions.Get(c.Request(), sessionName)
		dirty := false
		if _, ok := sess.Values[keyCSRFToken].(string); !ok {
			sess.Values[keyCSRFToken] = newToken()
			dirty = true
		}
		if uid, ok := sess.Values[keyUserID].(int64); ok {
			user, err := s.store.UserByID(c.Request().Context(), uid)
			switch {
			case err == nil && !user.Disabled:
				c.Set(ctxUser, user)
			case err == nil || errors.Is(err, models.ErrNotFound):
				delete(sess.Values, keyUserID)
				dirty = true
			default:
				return err
			}
		}
		if dirty {
			if err := sess.Save(c.Request(), c.Response()); err != nil {
				return err
			}
		}
		c.Set(ctxSession, sess)
		return next(c)
	}
}

func session(c echo.Context) *sessions.Session {
	sess, _ := c.Get(ctxSession).(*sessions.Session)
	return sess
}

// currentUser is the signed-in user, or nil.
func currentUser(c echo.Context) *models.User {
	u, _ := c.Get(ctxUser).(*models.User)
	return u
}

func csrfToken(c echo.Context) string {
	if sess := session(c); sess != nil {
		tok, _ := sess.Values[keyCSRFToken].(string)
		return tok
	}
	return ""
}

// signIn records user in the session with a new CSRF token, so that a
// token seen before signing in is worth nothing after.
func signIn(c echo.Context, user *models.User) error {
	sess := session(c)
	sess.Values[keyUserID] = user.ID
	sess.Values[keyCSRFToken] = newToken()
	c.Set(ctxUser, user)
	return sess.Save(c.Request(), c.Response())
}

// requireUser lets signed-in users through. Others go to the setup page
// while no administrator exists, and to the sign-in page after.
func (s *Server) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) != nil {
			return next(c)
		}
		needsSetup, err := s.store.NeedsSetup(c.Request().Context())
		if err != nil {
			return err
		}
		target := "/signin"
		if needsSetup {
			target = "/setup"
		} else if p := c.Request().URL.RequestURI(); p != "/" {
			target += "?next=" + url.QueryEscape(p)
		}
		return redirect(c, target)
	}
}

// redirect sends the browser to target: a 303 for normal requests, an
// HX-Redirect header for htmx ones (htmx does not follow a 303 into a full
// page).
func redirect(c echo.Context, target string) error {
	if c.Request().Header.Get(hxRequest) == "true" {
		c.Response().Header().Set(hxRedirect, target)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// safeNext returns next when it is a path on this site, and "/" otherwise,
// so that a crafted sign-in link cannot send users elsewhere.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

// page returns the view model every full page needs.
func page(c echo.Context, title string) web.Page {
	p := web.Page{Title: title, CSRFToken: csrfToken(c)}
	if u := currentUser(c); u != nil {
		p.User = &web.UserView{Username: u.Username, IsAdmin: u.IsAdmin}
	}
	return p
}
