package oidcauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Client signs users in at one provider. The provider's discovery
// document is fetched on first use and kept; a failed fetch is retried on
// the next use. It is safe for concurrent use.
type Client struct {
	settings Settings
	http     *http.Client
	now      func() time.Time

	mu       sync.Mutex
	provider *oidc.Provider
}

// NewClient returns a client for s. now is the clock that judges token
// expiry; nil means time.Now. It does not contact the provider.
func NewClient(s Settings, now func() time.Time) *Client {
	if s.Name == "" {
		s.Name = DefaultName
	}
	if now == nil {
		now = time.Now
	}
	return &Client{settings: s, http: &http.Client{Timeout: 15 * time.Second}, now: now}
}

// Name is the label of the sign-in button.
func (c *Client) Name() string { return c.settings.Name }

// DefaultMembership reports whether users join the default workspace
// rather than the workspaces of the role map: when no role map is set.
func (c *Client) DefaultMembership() bool {
	return c.settings.RoleClaim == "" || c.settings.RoleMap.Empty()
}

// Flow is what the browser must bring back to the callback: the state, the
// nonce and the PKCE verifier of one sign-in. Keep it from the visitor's
// eyes and hands (a signed, encrypted cookie).
type Flow struct {
	State, Nonce, Verifier string
}

// NewFlow returns a flow with new random state, nonce and PKCE verifier.
func NewFlow() Flow {
	return Flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier()}
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// discover returns the provider, fetching its discovery document on first
// use.
func (c *Client) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	// The key set keeps the context for its later fetches: no deadline.
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), c.http), c.settings.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oidcauth: discover %s: %w", c.settings.Issuer, err)
	}
	c.provider = p
	return p, nil
}

func (c *Client) oauth2Config(p *oidc.Provider, redirectURL string) *oauth2.Config {
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	return &oauth2.Config{
		ClientID:     c.settings.ClientID,
		ClientSecret: c.settings.ClientSecret,
		Endpoint:     p.Endpoint(),
		RedirectURL:  redirectURL,
		Scopes:       scopes,
	}
}

// AuthCodeURL returns where to send the browser to sign in at the
// provider with flow; the provider comes back to redirectURL.
func (c *Client) AuthCodeURL(ctx context.Context, redirectURL string, flow Flow) (string, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return "", err
	}
	return c.oauth2Config(p, redirectURL).AuthCodeURL(flow.State,
		oidc.Nonce(flow.Nonce), oauth2.S256ChallengeOption(flow.Verifier)), nil
}

// Callback is the provider's answer at the redirect URL.
type Callback struct {
	State, Code string
	// Error and ErrorDescription are set when the provider refused.
	Error, ErrorDescription string
}

// Exchange finishes flow with the provider's answer cb: the state must
// match, the code is exchanged (with the PKCE verifier) for tokens at the
// token endpoint, and the ID token is verified (VerifyIDToken). Errors
// wrap ErrDenied, ErrInvalid, ErrDomainNotAllowed or ErrEmailNotVerified,
// or are the provider being unreachable.
func (c *Client) Exchange(ctx context.Context, redirectURL string, flow Flow, cb Callback) (*Identity, error) {
	if cb.Error != "" {
		return nil, fmt.Errorf("%w: %s %s", ErrDenied, cb.Error, cb.ErrorDescription)
	}
	if flow.State == "" || cb.State != flow.State {
		return nil, fmt.Errorf("%w: state does not match", ErrInvalid)
	}
	if cb.Code == "" {
		return nil, fmt.Errorf("%w: no code", ErrInvalid)
	}
	p, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := c.oauth2Config(p, redirectURL).Exchange(oidc.ClientContext(ctx, c.http), cb.Code,
		oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%w: code exchange: %v", ErrInvalid, err)
		}
		return nil, fmt.Errorf("oidcauth: code exchange: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return nil, fmt.Errorf("%w: the token response has no id_token", ErrInvalid)
	}
	idt, all, err := c.verify(ctx, p, raw, flow.Nonce)
	if err != nil {
		return nil, err
	}
	if all, err = c.withUserinfo(ctx, p, tok, idt.Subject, all); err != nil {
		return nil, err
	}
	return c.identity(idt.Issuer, idt.Subject, all)
}

// VerifyIDToken verifies raw with go-oidc — signature by a key of the
// provider's JWKS, issuer, audience (the client id), expiry — then its
// nonce, and applies the email rules (AllowedDomains) and the role map to
// its claims (the ID token's alone: Exchange adds the userinfo endpoint's).
func (c *Client) VerifyIDToken(ctx context.Context, raw, nonce string) (*Identity, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	idt, all, err := c.verify(ctx, p, raw, nonce)
	if err != nil {
		return nil, err
	}
	return c.identity(idt.Issuer, idt.Subject, all)
}

// verify is VerifyIDToken's checks of raw at provider p; it returns the
// token and its claims.
func (c *Client) verify(ctx context.Context, p *oidc.Provider, raw, nonce string) (*oidc.IDToken, claimSet, error) {
	v := p.Verifier(&oidc.Config{ClientID: c.settings.ClientID, Now: c.now})
	idt, err := v.Verify(oidc.ClientContext(ctx, c.http), raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if nonce == "" || idt.Nonce != nonce {
		return nil, nil, fmt.Errorf("%w: nonce does not match", ErrInvalid)
	}
	var all claimSet
	if err := idt.Claims(&all); err != nil {
		return nil, nil, fmt.Errorf("%w: claims: %v", ErrInvalid, err)
	}
	return idt, all, nil
}
