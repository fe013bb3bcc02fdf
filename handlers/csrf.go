package handlers

import (
	"crypto/subtle"
	"net/http"

	"github.com/labstack/echo/v4"
)

// errCSRF is the answer to a state-changing request without the session's
// CSRF token.
var errCSRF = echo.NewHTTPError(http.StatusForbidden,
	"The request did not carry a valid CSRF token (the form may have expired). Reload the page and try again.")

// csrf refuses every request that may change state (anything but GET, HEAD
// and OPTIONS) unless it carries the session's CSRF token, in the
// X-CSRF-Token header (htmx) or the csrf_token form field. It runs after
// loadSession and before any handler, so a refused request changes nothing.
func (s *Server) csrf(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		want := csrfToken(c)
		got := c.Request().Header.Get(csrfHeader)
		if got == "" {
			got = c.FormValue(csrfFormField)
		}
		if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
			return errCSRF
		}
		return next(c)
	}
}
