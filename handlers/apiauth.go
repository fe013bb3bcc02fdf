package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// errUnauthorized is the answer to an API request without a valid token.
var errUnauthorized = echo.NewHTTPError(http.StatusUnauthorized,
	"Authentication required: send an API token as \"Authorization: Bearer <token>\" (create one with `sked token add USER`).")

// requireToken lets API requests through that carry a valid API token in
// "Authorization: Bearer <token>" and puts the token's user in the context.
// A missing, unknown or revoked token, or one of a disabled user, gets 401
// with a WWW-Authenticate challenge. Cookies are not looked at, so API
// calls need no CSRF token.
func (s *Server) requireToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="sked"`)
			return errUnauthorized
		}
		user, tokenID, err := s.store.AuthenticateTokenID(c.Request().Context(), strings.TrimSpace(token))
		if errors.Is(err, models.ErrBadCredentials) {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="sked", error="invalid_token"`)
			return errUnauthorized
		}
		if err != nil {
			return err
		}
		c.Set(ctxUser, user)
		c.Set(ctxTokenID, tokenID)
		return next(c)
	}
}
