package handlers

import (
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// setupPage shows the first-run setup form while no administrator exists,
// and sends everyone to the sign-in page after.
func (s *Server) setupPage(c echo.Context) error {
	needsSetup, err := s.store.NeedsSetup(c.Request().Context())
	if err != nil {
		return err
	}
	if !needsSetup {
		return redirect(c, web.SignInPath)
	}
	return render(c, http.StatusOK, web.SetupPage(page(c, "Set up"), web.SetupForm{}))
}

// setupSubmit creates the first administrator, signs them in and goes to
// the dashboard. It needs a setup code that `sked serve` printed in its
// log; a missing or wrong one, like invalid input, re-renders the form
// with field errors (422) and creates nothing. Wrong codes are slowed down
// per client address like failed sign-ins (429). Once an administrator
// exists it answers 404 and changes nothing.
func (s *Server) setupSubmit(c echo.Context) error {
	username := c.FormValue("username")
	password := c.FormValue("password")
	confirm := c.FormValue("confirm")
	code := strings.TrimSpace(c.FormValue("setup_code"))
	form := web.SetupForm{Username: username, SetupCode: code}
	addr := c.RealIP()
	if wait := s.throttle.waitSetup(addr); wait > 0 {
		seconds := int(math.Ceil(wait.Seconds()))
		c.Response().Header().Set("Retry-After", fmt.Sprint(seconds))
		form.Errors = web.FieldErrors{"setup_code": fmt.Sprintf("Setup code: too many wrong codes. Try again in %d seconds.", seconds)}
		return s.renderSetup(c, http.StatusTooManyRequests, form)
	}
	in := models.NewUser{Username: username, Password: password}

	errs := fieldErrors(in.Validate())
	if password != "" && confirm != password {
		if errs == nil {
			errs = web.FieldErrors{}
		}
		errs["confirm"] = "The repeated password does not match."
	}
	if errs != nil && code == "" {
		errs["setup_code"] = msgSetupCodeMissing
	}
	if errs == nil {
		user, err := s.store.CompleteSetupWithCode(c.Request().Context(), code, in)
		if err == nil {
			if err := signIn(c, user); err != nil {
				return err
			}
			s.log.Info("first administrator created", "user", user.Username)
			return redirect(c, "/")
		}
		if errs = fieldErrors(err); errs == nil {
			return err
		}
		switch {
		case code == "":
			errs["setup_code"] = msgSetupCodeMissing
		case errs["setup_code"] != "":
			errs["setup_code"] = msgSetupCodeWrong
			s.throttle.failSetup(addr)
			s.log.Info("setup code refused", "remote_addr", addr)
		}
	}
	form.Errors = errs
	return s.renderSetup(c, statusUnprocessable, form)
}

// Messages of the setup code field.
const (
	msgSetupCodeMissing = "Setup code: required. sked serve printed it in its log when it started (the line with setup_code=)."
	msgSetupCodeWrong   = "Setup code: wrong. Copy it from the log of sked serve (the line with setup_code=)."
)

// renderSetup sends the setup form to htmx and the whole page otherwise.
func (s *Server) renderSetup(c echo.Context, status int, form web.SetupForm) error {
	if isHTMX(c) {
		return render(c, status, web.SetupFormFragment(csrfToken(c), form))
	}
	return render(c, status, web.SetupPage(page(c, "Set up"), form))
}
