package handlers

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/oidcauth"
	"sked/web"
)

// The OpenID Connect sign-in: GET /signin/oidc sends the browser to the
// provider with a new state, nonce and PKCE verifier, kept in a
// short-lived cookie that is signed and encrypted under the session
// secret (so the flow is bound to this browser); the provider sends the
// browser back to GET /signin/oidc/callback, which checks the state,
// exchanges the code, verifies the ID token (oidcauth), finds or creates
// the user and starts a normal server-side session (signIn).
const (
	oidcFlowCookie   = "sked_oidc"
	oidcFlowPath     = "/signin/oidc"
	oidcCallbackPath = "/signin/oidc/callback"
	// oidcFlowMaxAge bounds the time from leaving for the provider to
	// coming back, in seconds.
	oidcFlowMaxAge = 600
)

// oidcFlows is the OpenID Connect client and the codec of the flow cookie.
type oidcFlows struct {
	client *oidcauth.Client
	codec  *securecookie.SecureCookie
	secure bool
}

// oidcFlowState is the content of the flow cookie.
type oidcFlowState struct {
	State, Nonce, Verifier, Next string
}

// newOIDCFlows returns nil when client is nil (no OpenID Connect).
func newOIDCFlows(client *oidcauth.Client, secret []byte, secure bool) *oidcFlows {
	if client == nil {
		return nil
	}
	derive := func(label string) []byte {
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(label))
		return mac.Sum(nil)
	}
	codec := securecookie.New(derive("sked oidc flow hash"), derive("sked oidc flow block")).MaxAge(oidcFlowMaxAge)
	return &oidcFlows{client: client, codec: codec, secure: secure}
}

// oidcName is the label of the sign-in button, or "" without OpenID
// Connect.
func (s *Server) oidcName() string {
	if s.oidc == nil {
		return ""
	}
	return s.oidc.client.Name()
}

// oidcRedirectURL is the callback's absolute URL: under the base URL, or
// the request's scheme and host without one.
func (s *Server) oidcRedirectURL(c echo.Context) string {
	if s.baseURL != "" {
		return strings.TrimRight(s.baseURL, "/") + oidcCallbackPath
	}
	return c.Scheme() + "://" + c.Request().Host + oidcCallbackPath
}

func (f *oidcFlows) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: oidcFlowCookie, Value: value, Path: oidcFlowPath, MaxAge: maxAge,
		HttpOnly: true, Secure: f.secure, SameSite: http.SameSiteLaxMode,
	}
}

// signInOIDCStart sends the browser to the provider (404 without OpenID
// Connect); a signed-in user goes straight to next.
func (s *Server) signInOIDCStart(c echo.Context) error {
	if s.oidc == nil {
		return echo.ErrNotFound
	}
	next := localRedirectTarget(c.QueryParam("next"))
	if currentUser(c) != nil {
		return redirect(c, next)
	}
	flow := oidcauth.NewFlow()
	target, err := s.oidc.client.AuthCodeURL(c.Request().Context(), s.oidcRedirectURL(c), flow)
	if err != nil {
		s.log.Error("oidc provider unreachable", "err", err)
		return s.oidcFailed(c, http.StatusBadGateway, next, "The sign-in provider cannot be reached. Try again later, or sign in with a password.")
	}
	value, err := s.oidc.codec.Encode(oidcFlowCookie, oidcFlowState{
		State: flow.State, Nonce: flow.Nonce, Verifier: flow.Verifier, Next: next,
	})
	if err != nil {
		return fmt.Errorf("oidc sign-in: encode flow: %w", err)
	}
	http.SetCookie(c.Response(), s.oidc.cookie(value, oidcFlowMaxAge))
	return c.Redirect(http.StatusSeeOther, target)
}

// signInOIDCCallback finishes the sign-in the provider sends back. The
// flow cookie is used once. Refusals re-render the sign-in page with a
// message: an answer that is not valid (state, token) is 400 and counts
// as a failed sign-in of the client address in the sign-in throttle; an
// email the settings refuse, a disabled user or the provider's refusal is
// 403; too many failures 429.
func (s *Server) signInOIDCCallback(c echo.Context) error {
	if s.oidc == nil {
		return echo.ErrNotFound
	}
	addr := c.RealIP()
	var flow oidcFlowState
	if ck, err := c.Cookie(oidcFlowCookie); err == nil {
		if s.oidc.codec.Decode(oidcFlowCookie, ck.Value, &flow) != nil {
			flow = oidcFlowState{}
		}
	}
	http.SetCookie(c.Response(), s.oidc.cookie("", -1))
	next := localRedirectTarget(flow.Next)
	if wait := s.throttle.waitAddr(addr); wait > 0 {
		seconds := int(math.Ceil(wait.Seconds()))
		c.Response().Header().Set("Retry-After", fmt.Sprint(seconds))
		return s.oidcFailed(c, http.StatusTooManyRequests, next, fmt.Sprintf("Too many failed sign-ins. Try again in %d seconds.", seconds))
	}
	if flow.State == "" {
		s.throttle.failAddr(addr)
		return s.oidcFailed(c, http.StatusBadRequest, next, "This sign-in was started too long ago or in another browser. Try again.")
	}
	q := c.QueryParams()
	id, err := s.oidc.client.Exchange(c.Request().Context(), s.oidcRedirectURL(c),
		oidcauth.Flow{State: flow.State, Nonce: flow.Nonce, Verifier: flow.Verifier},
		oidcauth.Callback{State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error"), ErrorDescription: q.Get("error_description")})
	if err != nil {
		return s.oidcRefused(c, addr, next, err)
	}
	in := models.ExternalSignIn{
		Issuer: id.Issuer, Subject: id.Subject, Email: id.Email, PreferredName: id.PreferredName,
		Admin: id.Admin, Workspaces: id.WorkspaceNames(), Roles: id.Workspaces, Now: s.clock(),
	}
	if s.oidc.client.DefaultMembership() {
		in.Workspaces = []string{models.DefaultWorkspaceID}
	}
	res, err := s.catalog.SignInExternal(c.Request().Context(), actorOf(c), in)
	switch {
	case errors.Is(err, models.ErrUserDisabled):
		s.log.Info("oidc sign-in refused", "reason", "user disabled", "subject", truncate(id.Subject, 64), "remote_addr", addr)
		return s.oidcFailed(c, http.StatusForbidden, next, "This account is disabled. Ask an administrator to enable it.")
	case err != nil:
		return err
	}
	if len(res.Skipped) > 0 {
		s.log.Warn("oidc role map names unknown workspaces", "workspaces", strings.Join(res.Skipped, ","))
	}
	s.log.Info("oidc sign-in", "user", res.User.Username, "created", res.Created, "admin", res.User.IsAdmin, "remote_addr", addr)
	// The sign-in's audit entries are written (catalog.SignInExternal).
	if err := signIn(c, res.User); err != nil {
		return err
	}
	return redirect(c, next)
}

// oidcRefused answers a failed exchange or verification.
func (s *Server) oidcRefused(c echo.Context, addr, next string, err error) error {
	s.log.Info("oidc sign-in refused", "err", err, "remote_addr", addr)
	switch {
	case errors.Is(err, oidcauth.ErrDomainNotAllowed):
		return s.oidcFailed(c, http.StatusForbidden, next, "Your email address is not in a domain that may sign in to Sked. Sign in with another account, or ask an administrator.")
	case errors.Is(err, oidcauth.ErrEmailNotVerified):
		return s.oidcFailed(c, http.StatusForbidden, next, "The sign-in provider did not confirm your email address, which Sked needs. Verify it at the provider and try again.")
	case errors.Is(err, oidcauth.ErrDenied):
		return s.oidcFailed(c, http.StatusForbidden, next, "The sign-in provider did not sign you in. Try again.")
	case errors.Is(err, oidcauth.ErrInvalid):
		s.throttle.failAddr(addr)
		return s.oidcFailed(c, http.StatusBadRequest, next, "The sign-in could not be completed. Try again.")
	default:
		s.log.Error("oidc provider unreachable", "err", err)
		return s.oidcFailed(c, http.StatusBadGateway, next, "The sign-in provider cannot be reached. Try again later, or sign in with a password.")
	}
}

// oidcFailed shows the sign-in page with message.
func (s *Server) oidcFailed(c echo.Context, status int, next, message string) error {
	form := web.SignInForm{Next: next, Error: message, Provider: s.oidcName()}
	return render(c, status, web.SignInPage(page(c, "Sign in"), form))
}
