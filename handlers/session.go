package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// Session cookie name and the keys of the session's values.
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

// loadSession finds the request's session (sessionStore: a signed-in one
// from the database, else an anonymous one, new when the browser has no
// cookie yet) and puts it and its user, if any, into the context. A
// session that has ended (signed out, idle, too old, its user disabled) is
// anonymous.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, err := s.sessions.Get(c.Request(), sessionName)
		if err != nil {
			return fmt.Errorf("load session: %w", err)
		}
		if user, ok := sess.Values[sessionUserKey{}].(*models.User); ok {
			c.Set(ctxUser, user)
		}
		if sess.IsNew {
			if err := sess.Save(c.Request(), c.Response()); err != nil {
				return fmt.Errorf("load session: %w", err)
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

// signIn starts a new server-side session for user, with a new cookie
// token and a new CSRF token, so that neither the token nor the CSRF token
// seen before signing in is worth anything after.
func signIn(c echo.Context, user *models.User) error {
	sess := session(c)
	sess.Values[keyUserID] = user.ID
	sess.Values[keyCSRFToken] = newToken()
	sess.Values[sessionUserKey{}] = user
	c.Set(ctxUser, user)
	return sess.Save(c.Request(), c.Response())
}

// requireUser lets signed-in users through. Others go to the setup page
// while no administrator exists, and to the sign-in page after.
func (s *Server) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) != nil {
			s.setSwitcher(c)
			return next(c)
		}
		needsSetup, err := s.store.NeedsSetup(c.Request().Context())
		if err != nil {
			return err
		}
		target := web.SignInPath
		if needsSetup {
			target = web.SetupPath
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

// page returns the view model every full page needs.
func page(c echo.Context, title string) web.Page {
	p := web.Page{Title: title, CSRFToken: csrfToken(c)}
	if u := currentUser(c); u != nil {
		p.User = &web.UserView{Username: u.Username, IsAdmin: u.IsAdmin}
		p.Switcher = switcherOf(c)
	}
	return p
}

// addFlash keeps msg in the session for the next page (after a redirect).
func addFlash(c echo.Context, msg string) error {
	sess := session(c)
	if sess == nil {
		return nil
	}
	sess.AddFlash(msg)
	return sess.Save(c.Request(), c.Response())
}

// takeFlash returns (and forgets) the messages kept for this page.
func takeFlash(c echo.Context) (string, error) {
	sess := session(c)
	if sess == nil {
		return "", nil
	}
	flashes := sess.Flashes()
	if len(flashes) == 0 {
		return "", nil
	}
	var msgs []string
	for _, f := range flashes {
		if s, ok := f.(string); ok {
			msgs = append(msgs, s)
		}
	}
	return strings.Join(msgs, " "), sess.Save(c.Request(), c.Response())
}
