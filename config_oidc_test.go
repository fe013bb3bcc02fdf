package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestConfigOIDC(t *testing.T) {
	cfg, err := loadConfig(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OIDC.Issuer != "" || cfg.OIDC.Name != "OpenID Connect" || cfg.OIDC.Client(nil) != nil {
		t.Errorf("default OIDC = %+v, want off and named OpenID Connect", cfg.OIDC)
	}

	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = loadConfig(t, []string{
		"--oidc-issuer", "https://id.example.com/realms/x/", "--oidc-client-id", "sked",
		"--oidc-name", "Example SSO", "--oidc-allowed-domains", "Example.com, example.org",
		"--oidc-role-claim", "groups", "--oidc-role-map", "sked-admins=admin;team-a=default:editor",
	}, map[string]string{"SKED_OIDC_CLIENT_SECRET_FILE": secretFile})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.OIDC
	if o.Issuer != "https://id.example.com/realms/x" || o.ClientID != "sked" || o.ClientSecret != "s3cret" || o.Name != "Example SSO" ||
		!slices.Equal(o.AllowedDomains, []string{"example.com", "example.org"}) || o.RoleClaim != "groups" ||
		len(o.RoleMap.Grants([]string{"sked-admins", "team-a"})) != 2 {
		t.Errorf("OIDC = %+v", o)
	}
	if c := o.Client(nil); c == nil || c.Name() != "Example SSO" {
		t.Errorf("Client = %v", c)
	}
}

func TestConfigOIDCBadValuesNameTheSetting(t *testing.T) {
	issuer := []string{"--oidc-issuer", "https://id.example.com", "--oidc-client-id", "sked"}
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--oidc-issuer", "http://id.example.com", "--oidc-client-id", "sked"}, nil, "--oidc-issuer (SKED_OIDC_ISSUER)"},
		{[]string{"--oidc-issuer", "id.example.com", "--oidc-client-id", "sked"}, nil, "--oidc-issuer (SKED_OIDC_ISSUER)"},
		{[]string{"--oidc-issuer", "https://id.example.com"}, nil, "--oidc-client-id (SKED_OIDC_CLIENT_ID)"},
		{[]string{"--oidc-client-id", "sked"}, nil, "--oidc-issuer (SKED_OIDC_ISSUER)"},
		{append(issuer, "--oidc-role-map", "team-a=default:writer", "--oidc-role-claim", "groups"), nil, "--oidc-role-map (SKED_OIDC_ROLE_MAP)"},
		{append(issuer, "--oidc-role-map", "team-a"), nil, "--oidc-role-map (SKED_OIDC_ROLE_MAP)"},
		{append(issuer, "--oidc-role-map", "team-a=admin"), nil, "--oidc-role-claim (SKED_OIDC_ROLE_CLAIM)"},
		{append(issuer, "--oidc-allowed-domains", "a@example.com"), nil, "--oidc-allowed-domains (SKED_OIDC_ALLOWED_DOMAINS)"},
		{append(issuer, "--oidc-name", " "), nil, "--oidc-name (SKED_OIDC_NAME)"},
		{append(issuer, "--oidc-client-secret-file", "/nonexistent/secret"), nil, "--oidc-client-secret-file (SKED_OIDC_CLIENT_SECRET_FILE)"},
		{append(issuer, "--oidc-client-secret", "x"), map[string]string{"SKED_OIDC_CLIENT_SECRET_FILE": secretFile}, "--oidc-client-secret-file (SKED_OIDC_CLIENT_SECRET_FILE)"},
	}
	for _, tt := range tests {
		_, err := loadConfig(t, tt.args, tt.env)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v %v: err = %v, want a ConfigError", tt.args, tt.env, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: %q does not name %s", tt.args, tt.env, err, tt.want)
		}
	}
}
