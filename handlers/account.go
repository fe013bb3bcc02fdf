package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// accountPage shows the "Your account" page: change the password, and
// the user's sessions.
func (s *Server) accountPage(c echo.Context) error {
	v, err := s.accountView(c)
	if err != nil {
		return err
	}
	if c.QueryParam("password") == "changed" {
		v.PasswordMessage = "Password changed. Every other session was signed out."
	}
	if c.QueryParam("time-zone") == "changed" {
		v.TimeZone.Message = "Time zone saved."
	}
	return render(c, http.StatusOK, web.AccountPage(page(c, "Your account"), v))
}

// changePassword sets a new password when the current one is right. It
// ends all of the user's sessions and starts a new one for this browser,
// then reloads the page (its CSRF token is new). Problems re-render the
// form with field errors (422).
func (s *Server) changePassword(c echo.Context) error {
	user := currentUser(c)
	password := c.FormValue("password")
	var errs web.FieldErrors
	if password != "" && c.FormValue("confirm") != password {
		errs = web.FieldErrors{"confirm": "The repeated password does not match."}
	} else {
		err := s.catalog.ChangePassword(c.Request().Context(), actorOf(c), c.FormValue("current"), password)
		if errs = formErrors(err, map[string]string{"current": "The current password", "password": "The new password"}); errs == nil && err != nil {
			return err
		}
	}
	if errs != nil {
		v := web.AccountView{Password: web.PasswordForm{Errors: errs}}
		if isHTMX(c) {
			return render(c, statusUnprocessable, web.PasswordSection(csrfToken(c), v))
		}
		full, err := s.accountView(c)
		if err != nil {
			return err
		}
		full.Password = v.Password
		return render(c, statusUnprocessable, web.AccountPage(page(c, "Your account"), full))
	}
	s.log.Info("password changed", "user", user.Username, "remote_addr", c.RealIP())
	if err := signIn(c, user); err != nil {
		return err
	}
	return redirect(c, web.AccountPasswordChangedURL)
}

// setTimeZone stores the user's time zone preference (IANA or Windows
// name), in which the dashboard shows its times. htmx gets the section
// back with its status line; other browsers reload the page. An unknown
// zone re-renders the form with its error (422) and stores nothing.
func (s *Server) setTimeZone(c echo.Context) error {
	user := currentUser(c)
	zone := c.FormValue("time_zone")
	err := s.store.SetUserTimeZone(c.Request().Context(), user.ID, zone)
	errs := formErrors(err, map[string]string{"time_zone": "The time zone"})
	if errs == nil && err != nil {
		return err
	}
	status := http.StatusOK
	form := web.TimeZoneForm{Value: zone, Errors: errs}
	if errs != nil {
		status = statusUnprocessable
	} else {
		s.log.Info("time zone changed", "user", user.Username, "time_zone", zone)
		if !isHTMX(c) {
			return redirect(c, web.AccountTimeZoneChangedURL)
		}
		form = web.TimeZoneForm{Value: strings.TrimSpace(zone), Message: "Time zone saved."}
	}
	if isHTMX(c) {
		return render(c, status, web.TimeZoneSection(csrfToken(c), web.AccountView{TimeZone: form}))
	}
	full, err := s.accountView(c)
	if err != nil {
		return err
	}
	full.TimeZone = form
	return render(c, status, web.AccountPage(page(c, "Your account"), full))
}

// endSession ends one of the user's sessions. Ending the current one
// signs this browser out; another user's session or an unknown id is a
// 404.
func (s *Server) endSession(c echo.Context) error {
	user := currentUser(c)
	id, err := accountPathID(c, "id")
	if err != nil {
		return err
	}
	if id == currentSessionID(c) {
		return s.signOut(c)
	}
	if err := s.store.EndSession(c.Request().Context(), user.ID, id); err != nil {
		return err
	}
	s.log.Info("session ended", "user", user.Username, "session_id", id)
	return s.renderSessions(c, "Session ended.")
}

// endOtherSessions ends every session of the user but this one.
func (s *Server) endOtherSessions(c echo.Context) error {
	user := currentUser(c)
	n, err := s.store.EndSessionsOf(c.Request().Context(), user.ID, currentSessionID(c))
	if err != nil {
		return err
	}
	s.log.Info("signed out everywhere else", "user", user.Username, "sessions", n)
	msg := fmt.Sprintf("Signed out of %d other sessions.", n)
	if n == 1 {
		msg = "Signed out of 1 other session."
	}
	return s.renderSessions(c, msg)
}

// endAllSessions ends every session of the user, this one included, and
// goes to the sign-in page.
func (s *Server) endAllSessions(c echo.Context) error {
	user := currentUser(c)
	n, err := s.store.EndSessionsOf(c.Request().Context(), user.ID, 0)
	if err != nil {
		return err
	}
	s.log.Info("signed out everywhere", "user", user.Username, "sessions", n)
	return s.signOut(c)
}

// renderSessions sends the sessions section to htmx and the whole page
// otherwise, with message as its status line.
func (s *Server) renderSessions(c echo.Context, message string) error {
	v, err := s.accountView(c)
	if err != nil {
		return err
	}
	v.Message = message
	if isHTMX(c) {
		return render(c, http.StatusOK, web.SessionsSection(csrfToken(c), v))
	}
	return render(c, http.StatusOK, web.AccountPage(page(c, "Your account"), v))
}

// accountView lists the signed-in user's live sessions: the current one
// first, then the others, the most recently seen first; and fills the time
// zone form with the user's zone.
func (s *Server) accountView(c echo.Context) (web.AccountView, error) {
	user := currentUser(c)
	v, err := s.accountViewFor(c.Request().Context(), user.ID, currentSessionID(c))
	v.TimeZone.Value = user.TimeZone
	return v, err
}

func (s *Server) accountViewFor(ctx context.Context, userID, current int64) (web.AccountView, error) {
	list, err := s.store.SessionsOf(ctx, userID, s.clock(), s.sessions.idle)
	if err != nil {
		return web.AccountView{}, err
	}
	var v web.AccountView
	now := s.clock()
	for _, ss := range list {
		row := web.SessionRow{
			ID: ss.ID, Current: ss.ID == current, Browser: web.BrowserName(ss.UserAgent), Address: ss.RemoteAddr,
			Created: accountTimeView(ss.CreatedAt, now), LastSeen: accountTimeView(ss.LastSeenAt, now),
		}
		if row.Current {
			v.Sessions = append([]web.SessionRow{row}, v.Sessions...)
		} else {
			v.Sessions = append(v.Sessions, row)
		}
	}
	return v, nil
}
