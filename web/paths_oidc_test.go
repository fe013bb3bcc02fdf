package web

import "testing"

func TestSignInOIDCPath(t *testing.T) {
	for next, want := range map[string]string{
		"":                  "/signin/oidc",
		"/":                 "/signin/oidc",
		"/account":          "/signin/oidc?next=%2Faccount",
		"/c/ws/rg/jc?x=1&y": "/signin/oidc?next=%2Fc%2Fws%2Frg%2Fjc%3Fx%3D1%26y",
	} {
		if got := SignInOIDCPath(next); got != want {
			t.Errorf("SignInOIDCPath(%q) = %q, want %q", next, got, want)
		}
	}
}
