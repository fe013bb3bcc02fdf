package oidcauth

import (
	"context"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// wantedClaims are the claims Sked reads (besides the role claim) that a
// provider may leave out of the ID token and serve only at its userinfo
// endpoint.
var wantedClaims = []string{"email", "preferred_username"}

// missing reports whether all lacks a claim Sked reads: email,
// preferred_username, or the role claim when one is set.
func (c *Client) missing(all claimSet) bool {
	for _, name := range wantedClaims {
		if _, ok := all[name]; !ok {
			return true
		}
	}
	if c.settings.RoleClaim != "" {
		if _, ok := all[c.settings.RoleClaim]; !ok {
			return true
		}
	}
	return false
}

// withUserinfo adds to the ID token's claims all those of the provider's
// userinfo endpoint (asked with the access token of tok, through go-oidc's
// Provider.UserInfo) when the ID token lacks one Sked reads and the
// provider has the endpoint. The ID token wins where both have a claim;
// email and email_verified go together, from the ID token when it has an
// email, else both from userinfo. A userinfo answer about another subject
// is refused (ErrInvalid); an endpoint that fails fails the sign-in, since
// the claims that decide the user's roles may be the ones missing.
func (c *Client) withUserinfo(ctx context.Context, p *oidc.Provider, tok *oauth2.Token, subject string, all claimSet) (claimSet, error) {
	if !c.missing(all) || p.UserInfoEndpoint() == "" {
		return all, nil
	}
	ui, err := p.UserInfo(oidc.ClientContext(ctx, c.http), oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, fmt.Errorf("oidcauth: userinfo: %w", err)
	}
	if ui.Subject != subject {
		return nil, fmt.Errorf("%w: userinfo is about subject %q, the ID token about %q", ErrInvalid, ui.Subject, subject)
	}
	var extra claimSet
	if err := ui.Claims(&extra); err != nil {
		return nil, fmt.Errorf("%w: userinfo claims: %v", ErrInvalid, err)
	}
	return mergeClaims(all, extra), nil
}

// mergeClaims returns idToken's claims with those of userinfo that it
// lacks; email_verified follows email (a verification from one source
// never vouches for an address from the other).
func mergeClaims(idToken, userinfo claimSet) claimSet {
	out := make(claimSet, len(idToken)+len(userinfo))
	for k, v := range userinfo {
		out[k] = v
	}
	for k, v := range idToken {
		out[k] = v
	}
	if _, ok := idToken["email"]; ok {
		delete(out, "email_verified")
		if v, ok := idToken["email_verified"]; ok {
			out["email_verified"] = v
		}
	} else {
		delete(out, "email_verified")
		if v, ok := userinfo["email_verified"]; ok {
			out["email_verified"] = v
		}
	}
	return out
}
