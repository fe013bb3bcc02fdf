package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// msgBadCredentials is the one message for an unknown user and a wrong
// password.
const msgBadCredentials = "Unknown user name or wrong password."

// signInPage shows the sign-in form (or the setup page while there is no
// administrator).
func (s *Server) signInPage(c echo.Context) error {
	needsSetup, err := s.store.NeedsSetup(c.Request().Context())
	if err != nil {
		return err
	}
	if needsSetup {
		return redirect(c, web.SetupPath)
	}
	next := localRedirectTarget(c.QueryParam("next"))
	if currentUser(c) != nil {
		return redirect(c, next)
	}
	return render(c, http.StatusOK, web.SignInPage(page(c, "Sign in"), web.SignInForm{Next: next, Provider: s.oidcName()}))
}

// signInSubmit checks the user name and password. Success signs in and
// goes to the page the user came for; failure re-renders the form with one
// message (422); too many failures answer 429 until the wait is over.
func (s *Server) signInSubmit(c echo.Context) error {
	form := web.SignInForm{
		Username: c.FormValue("username"),
		Next:     localRedirectTarget(c.FormValue("next")),
		Errors:   web.FieldErrors{},
	}
	password := c.FormValue("password")
	if form.Username == "" {
		form.Errors["username"] = "User name is required."
	}
	if password == "" {
		form.Errors["password"] = "Password is required."
	}
	if len(form.Errors) > 0 {
		return s.signInFailed(c, statusUnprocessable, form)
	}
	addr := c.RealIP()
	if wait := s.throttle.wait(form.Username, addr); wait > 0 {
		seconds := int(math.Ceil(wait.Seconds()))
		form.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %d seconds.", seconds)
		c.Response().Header().Set("Retry-After", fmt.Sprint(seconds))
		return s.signInFailed(c, http.StatusTooManyRequests, form)
	}
	user, err := s.store.Authenticate(c.Request().Context(), form.Username, password)
	switch {
	case errors.Is(err, models.ErrBadCredentials):
		s.throttle.fail(form.Username, addr)
		s.log.Info("sign-in failed", "user", truncate(form.Username, 64), "remote_addr", addr)
		form.Error = msgBadCredentials
		return s.signInFailed(c, statusUnprocessable, form)
	case errors.Is(err, models.ErrUserDisabled):
		form.Error = "This account is disabled. Ask an administrator to enable it."
		return s.signInFailed(c, http.StatusForbidden, form)
	case err != nil:
		return err
	}
	s.throttle.succeed(form.Username)
	if err := signIn(c, user); err != nil {
		return err
	}
	if err := s.catalog.SignedIn(c.Request().Context(), signedInActor(c, user), "password"); err != nil {
		return err
	}
	return redirect(c, form.Next)
}

func (s *Server) signInFailed(c echo.Context, status int, form web.SignInForm) error {
	form.Provider = s.oidcName()
	if isHTMX(c) {
		return render(c, status, web.SignInFormFragment(csrfToken(c), form))
	}
	return render(c, status, web.SignInPage(page(c, "Sign in"), form))
}

// signOut forgets the session and goes to the sign-in page.
func (s *Server) signOut(c echo.Context) error {
	if u := currentUser(c); u != nil {
		if err := s.catalog.SignedOut(c.Request().Context(), signedInActor(c, u)); err != nil {
			return err
		}
	}
	sess := session(c)
	sess.Values = map[any]any{}
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, web.SignInPath)
}

// truncate shortens s to at most n bytes for a log line.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
