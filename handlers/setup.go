package handlers

import (
	"github.com/labstack/echo/v4"
	"net/http"

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
		return redirect(c, "/signin")
	}
	return render(c, http.StatusOK, web.SetupPage(page(c, "Set up"), web.SetupForm{}))
}

// setupSubmit creates the first administrator, signs them in and goes to
// the dashboard. Invalid input re-renders the form with field errors (422);
// once an administrator exists it answers 404 and changes nothing.
func (s *Server) setupSubmit(c echo.Context) error {
	username := c.FormValue("username")
	password := c.FormValue("password")
	confirm := c.FormValue("confirm")
	in := models.NewUser{Username: username, Password: password}

	errs := fieldErrors(in.Validate())
	if password != "" && confirm != password {
		if errs == nil {
			errs = web.FieldErrors{}
		}
		errs["confirm"] = "The repeated password does not match."
	}
	if errs == nil {
		user, err := s.store.CompleteSetup(c.Request().Context(), in)
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
	}
	form := web.SetupForm{Username: username, Errors: errs}
	if isHTMX(c) {
		return render(c, statusUnprocessable, web.SetupFormFragment(csrfToken(c), form))
	}
	return render(c, statusUnprocessable, web.SetupPage(page(c, "Set up"), form))
}
