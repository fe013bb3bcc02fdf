package oidcauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"maps"
	"testing"
	"time"

	"sked/oidcauth"
	"sked/oidcauth/oidctest"
)

// TestVerifyIDToken checks the production verification (go-oidc against
// the provider's discovery and JWKS) with tokens signed by the provider's
// key, another key, for another issuer or audience, expired, or with
// another nonce.
func TestVerifyIDToken(t *testing.T) {
	p := oidctest.Start(t)
	roles, err := oidcauth.ParseRoleMap("sked-admins=admin;team-a=default:editor;team-a=ops:reader;team-b=ops:operator")
	if err != nil {
		t.Fatal(err)
	}
	client := oidcauth.NewClient(oidcauth.Settings{
		Issuer: p.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		AllowedDomains: []string{"example.com"}, RoleClaim: "groups", RoleMap: roles,
	}, nil)
	now := time.Now()
	good := func() map[string]any {
		return map[string]any{
			"iss": p.Issuer, "sub": "u-1", "aud": oidctest.ClientID, "nonce": "n-1",
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
			"email": "ada@example.com", "email_verified": true, "preferred_username": "ada",
			"groups": []string{"team-a", "sked-admins", "team-b", "unmapped"},
		}
	}
	with := func(k string, v any) map[string]any {
		c := good()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	ctx := context.Background()

	id, err := client.VerifyIDToken(ctx, p.SignToken(t, good()), "n-1")
	if err != nil {
		t.Fatalf("good token: %v", err)
	}
	if id.Issuer != p.Issuer || id.Subject != "u-1" || id.Email != "ada@example.com" || id.PreferredName != "ada" || !id.Admin {
		t.Errorf("identity = %+v", id)
	}
	if want := map[string]string{"default": "editor", "ops": "operator"}; !maps.Equal(id.Workspaces, want) {
		t.Errorf("workspaces = %v, want %v", id.Workspaces, want)
	}

	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name  string
		token string
		nonce string
		want  error
	}{
		{"another issuer", p.SignToken(t, with("iss", "https://evil.example.org")), "n-1", oidcauth.ErrInvalid},
		{"wrong audience", p.SignToken(t, with("aud", "another-client")), "n-1", oidcauth.ErrInvalid},
		{"expired", p.SignToken(t, with("exp", now.Add(-time.Minute).Unix())), "n-1", oidcauth.ErrInvalid},
		{"bad signature", oidctest.Sign(t, otherKey, p.KeyID(t), good()), "n-1", oidcauth.ErrInvalid},
		{"wrong nonce", p.SignToken(t, good()), "n-2", oidcauth.ErrInvalid},
		{"no nonce", p.SignToken(t, with("nonce", nil)), "n-1", oidcauth.ErrInvalid},
		{"not a JWT", "abc.def.ghi", "n-1", oidcauth.ErrInvalid},
		{"domain not allowed", p.SignToken(t, with("email", "eve@example.org")), "n-1", oidcauth.ErrDomainNotAllowed},
		{"look-alike domain", p.SignToken(t, with("email", "eve@evilexample.com")), "n-1", oidcauth.ErrDomainNotAllowed},
		{"email not verified", p.SignToken(t, with("email_verified", false)), "n-1", oidcauth.ErrEmailNotVerified},
		{"no email", p.SignToken(t, with("email", nil)), "n-1", oidcauth.ErrEmailNotVerified},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			id, err := client.VerifyIDToken(ctx, tc.token, tc.nonce)
			t.Log(err)
			if !errors.Is(err, tc.want) {
				t.Errorf("VerifyIDToken = %+v, %v; want %v", id, err, tc.want)
			}
		})
	}
}

// TestExchangeRefusesState checks that a callback whose state is not the
// flow's, or that carries the provider's error, is refused before any
// code exchange.
func TestExchangeRefusesState(t *testing.T) {
	p := oidctest.Start(t)
	client := oidcauth.NewClient(oidcauth.Settings{Issuer: p.Issuer, ClientID: oidctest.ClientID}, nil)
	flow := oidcauth.NewFlow()
	ctx := context.Background()
	if _, err := client.Exchange(ctx, "http://127.0.0.1/cb", flow, oidcauth.Callback{State: "other", Code: "c"}); !errors.Is(err, oidcauth.ErrInvalid) {
		t.Errorf("wrong state: %v", err)
	}
	if _, err := client.Exchange(ctx, "http://127.0.0.1/cb", oidcauth.Flow{}, oidcauth.Callback{Code: "c"}); !errors.Is(err, oidcauth.ErrInvalid) {
		t.Errorf("no state: %v", err)
	}
	if _, err := client.Exchange(ctx, "http://127.0.0.1/cb", flow, oidcauth.Callback{State: flow.State, Error: "access_denied"}); !errors.Is(err, oidcauth.ErrDenied) {
		t.Errorf("provider error: %v", err)
	}
	if _, err := client.Exchange(ctx, "http://127.0.0.1/cb", flow, oidcauth.Callback{State: flow.State, Code: "forged"}); !errors.Is(err, oidcauth.ErrInvalid) {
		t.Errorf("forged code: %v", err)
	}
}
