// Package oidcauth signs users in through an OpenID Connect provider (SPEC
// §13.4): the authorization code flow with PKCE, state and
// nonce, through golang.org/x/oauth2, and the ID token's verification
// (signature, issuer, audience, expiry) through
// github.com/coreos/go-oidc/v3. It knows nothing of HTTP handlers or the
// database: it turns a callback's code into an Identity, which the caller
// then signs in.
package oidcauth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Settings configure the provider. Issuer and ClientID are required.
type Settings struct {
	// Issuer is the provider's issuer URL, where
	// /.well-known/openid-configuration is found.
	Issuer string
	// ClientID and ClientSecret are Sked's registration at the provider;
	// the secret may be empty for a public client (PKCE still applies).
	ClientID, ClientSecret string
	// Name labels the sign-in button ("Sign in with Name"). Empty means
	// DefaultName.
	Name string
	// AllowedDomains are the email domains that may sign in, lower case.
	// Empty means any user of the provider; otherwise the ID token must
	// carry a verified email in one of them.
	AllowedDomains []string
	// RoleClaim names the ID token claim (a string or a list of strings)
	// whose values RoleMap maps to grants. Empty means none: every user
	// becomes a member of the default workspace.
	RoleClaim string
	// RoleMap maps values of RoleClaim to grants.
	RoleMap RoleMap
}

// DefaultName is the button's label when Settings.Name is empty.
const DefaultName = "OpenID Connect"

// Errors of a sign-in that the user should be told about; others mean the
// provider's answer was not acceptable (ErrInvalid) or unreachable.
var (
	// ErrInvalid means the callback or its ID token is not acceptable:
	// wrong state, signature, issuer, audience or nonce, or expired.
	ErrInvalid = errors.New("oidcauth: the provider's answer is not valid")
	// ErrDomainNotAllowed means the email is not in an allowed domain.
	ErrDomainNotAllowed = errors.New("oidcauth: email domain not allowed")
	// ErrEmailNotVerified means a verified email is needed and the
	// provider did not vouch for one.
	ErrEmailNotVerified = errors.New("oidcauth: email not verified")
	// ErrDenied means the provider answered with an error (the user
	// cancelled, or the provider refused).
	ErrDenied = errors.New("oidcauth: the provider refused the sign-in")
)

// ParseDomains parses comma-separated email domains, lower-cased, without
// blanks or a leading "@"; "" gives none.
func ParseDomains(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		d := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(part), "@"))
		if d == "" {
			continue
		}
		if strings.ContainsAny(d, "@/: ") || !strings.Contains(d, ".") && d != "localhost" {
			return nil, fmt.Errorf("%q is not an email domain such as example.com", part)
		}
		out = append(out, d)
	}
	return out, nil
}

// ValidateIssuer checks that issuer is an absolute https URL, or http on a
// loopback host (for tests and local providers).
func ValidateIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an absolute https:// URL", issuer)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%q must be https:// (http:// only on a loopback host)", issuer)
	default:
		return fmt.Errorf("%q is not an absolute https:// URL", issuer)
	}
}

// domainAllowed reports whether email's domain is one of domains.
func domainAllowed(email string, domains []string) bool {
	at := strings.LastIndex(email, "@")
	if at < 0 {
		return false
	}
	d := strings.ToLower(email[at+1:])
	for _, a := range domains {
		if d == a {
			return true
		}
	}
	return false
}
