package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
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
	form := web.TokenForm{Name: name, Role: c.FormValue("role"), Workspace: c.FormValue("workspace"), Expires: c.FormValue("expires")}
	var errs web.FieldErrors
	var created *web.NewTokenView
	scope, scopeErrs := s.tokenScopeForm(c, form)
	if name == "" {
		errs = web.FieldErrors{"name": "The name is required: say where the token will be used, such as “ci”."}
	} else if scopeErrs != nil {
		errs = scopeErrs
	} else {
		tok, secret, err := s.catalog.CreateToken(ctx, actorOf(c), user, name, scope)
		if err != nil {
			if errs = formErrors(err, map[string]string{"name": "The name", "role": "The role", "workspaces": "The workspace", "expires": "The expiry"}); errs == nil {
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
		form.Errors = errs
		v.Form = form
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
	if err := s.catalog.RevokeToken(ctx, actorOf(c), user, id); err != nil {
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
	now := s.clock()
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, web.TokenRow{
			ID: t.ID, Name: t.Name, Prefix: t.Prefix,
			Created: accountTimeView(t.CreatedAt, now), LastUsed: accountOptionalTime(t.LastUsedAt, now), Revoked: accountOptionalTime(t.RevokedAt, now),
			Role: t.Role, Scope: tokenScopeText(t.Scope()), Expires: accountOptionalTime(t.ExpiresAt, now),
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

// tokenScopeForm reads the scope of the create form: one workspace ("":
// all the user's), a role (owner when not given, as before scopes) no
// higher than the user's there, an expiry day.
func (s *Server) tokenScopeForm(c echo.Context, f web.TokenForm) (models.TokenScope, web.FieldErrors) {
	errs := web.FieldErrors{}
	role := models.Role(models.RoleOwner)
	if f.Role != "" {
		r, err := models.ParseRole(f.Role)
		if err != nil {
			errs["role"] = "The role must be reader, operator, editor or owner."
		}
		role = r
	}
	scope := models.TokenScope{Role: role}
	if f.Workspace != "" {
		have, err := s.store.RoleIn(c.Request().Context(), f.Workspace, currentUser(c).ID)
		switch {
		case err != nil || have == "":
			errs["workspaces"] = "You are not a member of " + f.Workspace + "."
		case !have.Includes(role):
			errs["role"] = "The role is higher than yours in " + f.Workspace + " (" + string(have) + ")."
		}
		scope.Workspaces = []string{f.Workspace}
	}
	if f.Expires != "" {
		t, err := time.Parse(time.DateOnly, f.Expires)
		if err != nil {
			errs["expires"] = "The expiry must be a day like 2027-01-01."
		} else if !t.After(s.clock()) {
			errs["expires"] = "The expiry must be in the future."
		}
		scope.ExpiresAt = t
	}
	if len(errs) > 0 {
		return scope, errs
	}
	return scope, nil
}

// tokenScopeText says which workspaces a token covers.
func tokenScopeText(sc models.TokenScope) string {
	if sc.Workspaces == nil {
		return "all yours"
	}
	return strings.Join(sc.Workspaces, ", ")
}
