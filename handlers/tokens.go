package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// tokensPage lists the user's API tokens and workspaces, with the create
// form.
func (s *Server) tokensPage(c echo.Context) error {
	v, err := s.tokensView(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	return s.renderTokens(c, http.StatusOK, v)
}

// createToken issues a token and shows its secret in this response only
// (never stored, never cached). A missing or too long name re-renders the
// form with the error (422).
func (s *Server) createToken(c echo.Context) error {
	ctx := c.Request().Context()
	user := currentUser(c)
	name := strings.TrimSpace(c.FormValue("name"))
	var errs web.FieldErrors
	var created *web.NewTokenView
	if name == "" {
		errs = web.FieldErrors{"name": "The name is required: say where the token will be used, such as “ci”."}
	} else {
		tok, secret, err := s.store.CreateToken(ctx, user.ID, name)
		if err != nil {
			if errs = formErrors(err, map[string]string{"name": "The name"}); errs == nil {
				return err
			}
		} else {
			created = &web.NewTokenView{Name: tok.Name, Token: secret}
			s.log.Info("api token created", "user", user.Username, "token_id", tok.ID, "prefix", tok.Prefix)
		}
	}
	v, err := s.tokensView(ctx, user.ID)
	if err != nil {
		return err
	}
	if errs != nil {
		v.Form = web.TokenForm{Name: name, Errors: errs}
		return s.renderTokens(c, statusUnprocessable, v)
	}
	v.New = created
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return s.renderTokens(c, http.StatusOK, v)
}

// revokeToken revokes one of the user's tokens; another user's token or an
// unknown id is a 404.
func (s *Server) revokeToken(c echo.Context) error {
	ctx := c.Request().Context()
	user := currentUser(c)
	id, err := accountPathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.store.RevokeToken(ctx, user.ID, id); err != nil {
		return err
	}
	v, err := s.tokensView(ctx, user.ID)
	if err != nil {
		return err
	}
	for _, t := range v.Tokens {
		if t.ID == id {
			v.Message = "Token “" + t.Name + "” revoked: it no longer authenticates."
		}
	}
	s.log.Info("api token revoked", "user", user.Username, "token_id", id)
	return s.renderTokens(c, http.StatusOK, v)
}

func (s *Server) tokensView(ctx context.Context, userID int64) (web.TokensView, error) {
	tokens, err := s.store.TokensOf(ctx, userID)
	if err != nil {
		return web.TokensView{}, err
	}
	ws, err := s.store.WorkspacesOf(ctx, userID)
	if err != nil {
		return web.TokensView{}, err
	}
	v := web.TokensView{}
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, web.TokenRow{
			ID: t.ID, Name: t.Name, Prefix: t.Prefix,
			Created: accountTimeView(t.CreatedAt), LastUsed: accountOptionalTime(t.LastUsedAt), Revoked: accountOptionalTime(t.RevokedAt),
		})
	}
	for _, w := range ws {
		v.Workspaces = append(v.Workspaces, web.WorkspaceLink{ID: w.ID, DisplayName: w.DisplayName})
	}
	return v, nil
}

// renderTokens sends the tokens section to htmx and the whole page
// otherwise.
func (s *Server) renderTokens(c echo.Context, status int, v web.TokensView) error {
	if isHTMX(c) {
		return render(c, status, web.TokensSection(csrfToken(c), v))
	}
	return render(c, status, web.TokensPage(page(c, "API tokens"), v))
}
