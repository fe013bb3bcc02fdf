package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"sked/oidcauth"
)

// OIDCConfig is the OpenID Connect sign-in (SPEC §13.4): off while Issuer
// is empty (the default).
type OIDCConfig struct {
	// Issuer is the provider's issuer URL (--oidc-issuer,
	// SKED_OIDC_ISSUER): https, or http on a loopback host. Default empty.
	Issuer string
	// ClientID is Sked's client id at the provider (--oidc-client-id,
	// SKED_OIDC_CLIENT_ID); required with Issuer.
	ClientID string
	// ClientSecret is its secret (--oidc-client-secret,
	// SKED_OIDC_CLIENT_SECRET, or read from the file named by
	// --oidc-client-secret-file, SKED_OIDC_CLIENT_SECRET_FILE; not both).
	// Default empty (a public client).
	ClientSecret string
	// ClientSecretFile is the file ClientSecret was read from, if any.
	ClientSecretFile string
	// Name labels the sign-in button (--oidc-name, SKED_OIDC_NAME).
	// Default "OpenID Connect".
	Name string
	// AllowedDomains are the email domains that may sign in
	// (--oidc-allowed-domains, SKED_OIDC_ALLOWED_DOMAINS,
	// comma-separated). Default none: any user of the provider.
	AllowedDomains []string
	// RoleClaim names the ID token claim whose values RoleMap maps
	// (--oidc-role-claim, SKED_OIDC_ROLE_CLAIM), e.g. groups. Default
	// empty: every user joins the default workspace.
	RoleClaim string
	// RoleMap maps claim values to grants (--oidc-role-map,
	// SKED_OIDC_ROLE_MAP): "VALUE=admin;VALUE=WORKSPACE:ROLE;…" (see
	// oidcauth.ParseRoleMap). Default empty.
	RoleMap oidcauth.RoleMap
	// roleMapSet records that a role map was given.
	roleMapSet bool
}

var oidcSettings = []setting{
	{"oidc-issuer", "SKED_OIDC_ISSUER", "", "OpenID Connect issuer URL (https); empty turns OpenID Connect sign-in off", func(c *Config, v string) error {
		c.OIDC.Issuer = strings.TrimRight(strings.TrimSpace(v), "/")
		return nil
	}},
	{"oidc-client-id", "SKED_OIDC_CLIENT_ID", "", "OpenID Connect client id (required with --oidc-issuer)", func(c *Config, v string) error {
		c.OIDC.ClientID = strings.TrimSpace(v)
		return nil
	}},
	{"oidc-client-secret", "SKED_OIDC_CLIENT_SECRET", "", "OpenID Connect client secret", func(c *Config, v string) error {
		c.OIDC.ClientSecret = v
		return nil
	}},
	{"oidc-client-secret-file", "SKED_OIDC_CLIENT_SECRET_FILE", "", "file holding the OpenID Connect client secret (instead of --oidc-client-secret)", readClientSecretFile},
	{"oidc-name", "SKED_OIDC_NAME", oidcauth.DefaultName, `label of the "Sign in with …" button`, func(c *Config, v string) error {
		c.OIDC.Name = strings.TrimSpace(v)
		if c.OIDC.Name == "" || len(c.OIDC.Name) > 60 {
			return fmt.Errorf("%q must be 1 to 60 characters", v)
		}
		return nil
	}},
	{"oidc-allowed-domains", "SKED_OIDC_ALLOWED_DOMAINS", "", "comma-separated email domains that may sign in with OpenID Connect (a verified email is then required); empty = any", func(c *Config, v string) error {
		var err error
		c.OIDC.AllowedDomains, err = oidcauth.ParseDomains(v)
		return err
	}},
	{"oidc-role-claim", "SKED_OIDC_ROLE_CLAIM", "", "ID token claim whose values --oidc-role-map maps, e.g. groups", func(c *Config, v string) error {
		c.OIDC.RoleClaim = strings.TrimSpace(v)
		return nil
	}},
	{"oidc-role-map", "SKED_OIDC_ROLE_MAP", "", `claim values to grants: "VALUE=admin;VALUE=WORKSPACE:ROLE" (ROLE: reader, operator, editor, owner)`, func(c *Config, v string) error {
		var err error
		c.OIDC.RoleMap, err = oidcauth.ParseRoleMap(v)
		c.OIDC.roleMapSet = !c.OIDC.RoleMap.Empty()
		return err
	}},
}

// readClientSecretFile reads the client secret from the file named v,
// without its trailing line break.
func readClientSecretFile(c *Config, v string) error {
	c.OIDC.ClientSecretFile = strings.TrimSpace(v)
	if c.OIDC.ClientSecretFile == "" {
		return nil
	}
	b, err := os.ReadFile(c.OIDC.ClientSecretFile)
	if err != nil {
		return fmt.Errorf("read the client secret: %w", err)
	}
	if c.OIDC.ClientSecret != "" {
		return fmt.Errorf("give the client secret or its file, not both")
	}
	c.OIDC.ClientSecret = strings.TrimRight(string(b), "\r\n")
	if c.OIDC.ClientSecret == "" {
		return fmt.Errorf("%s is empty", c.OIDC.ClientSecretFile)
	}
	return nil
}

// validate checks the OpenID Connect settings together.
func (o OIDCConfig) validate() error {
	if o.Issuer == "" {
		switch {
		case o.ClientID != "":
			return configError("oidc-issuer", "is required with --oidc-client-id")
		case o.roleMapSet || o.RoleClaim != "" || len(o.AllowedDomains) > 0:
			return configError("oidc-issuer", "is required with the other --oidc-* settings")
		}
		return nil
	}
	if err := oidcauth.ValidateIssuer(o.Issuer); err != nil {
		return configError("oidc-issuer", "%v", err)
	}
	if o.ClientID == "" {
		return configError("oidc-client-id", "is required when --oidc-issuer is set")
	}
	if o.roleMapSet && o.RoleClaim == "" {
		return configError("oidc-role-claim", "is required when --oidc-role-map is set")
	}
	return nil
}

// Client returns the OpenID Connect client of o, or nil when o is off.
// now is the clock that judges token expiry; nil means time.Now.
func (o OIDCConfig) Client(now func() time.Time) *oidcauth.Client {
	if o.Issuer == "" {
		return nil
	}
	return oidcauth.NewClient(oidcauth.Settings{
		Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret, Name: o.Name,
		AllowedDomains: o.AllowedDomains, RoleClaim: o.RoleClaim, RoleMap: o.RoleMap,
	}, now)
}
