package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"sked/oidcauth"
	"sked/oidcauth/oidctest"
)

// TestBrowserOIDCSignIn signs in with "Sign in with Example SSO" through
// the login page of a real OpenID provider started in the test (the
// zitadel example provider): the new user is created as an
// administrator (the groups claim maps sked-admins to admin).
func TestBrowserOIDCSignIn(t *testing.T) {
	p := oidctest.Start(t, oidctest.User{
		ID: "sub-ada", Username: "ada", Password: "ada-password",
		Email: "ada@example.com", EmailVerified: true, Groups: []string{"sked-admins"},
	})
	roles, err := oidcauth.ParseRoleMap("sked-admins=admin")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := startSked(t, newDataDir(t), func(c *Config) {
		c.OIDC = OIDCConfig{
			Issuer: p.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
			Name: "Example SSO", AllowedDomains: []string{"example.com"}, RoleClaim: "groups", RoleMap: roles,
		}
	})
	p.SetRedirectURI(base + "/signin/oidc/callback")
	admin := newBrowser(t)
	setupAndSignIn(t, admin, base)

	// A second browser with its own cookies.
	ctx, cancel := chromedp.NewContext(admin, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/signin"),
		chromedp.WaitVisible(chromedp.ID("signin-oidc")),
	)
	if err != nil {
		t.Fatal(err)
	}
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("signin-oidc")))
	if err != nil || strings.TrimSpace(label) != "Sign in with Example SSO" {
		t.Fatalf("button %q (%v)", label, err)
	}
	screenshot(t, ctx, "50-signin-oidc-button")

	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("signin-oidc")),
		chromedp.WaitVisible(`input[name="username"]`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasPrefix(loc, p.Issuer+"/login/") {
		t.Fatalf("at %q (%v), want the provider's login page", loc, err)
	}
	screenshot(t, ctx, "51-signin-oidc-provider")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`input[name="username"]`, "ada"),
		chromedp.SendKeys(`input[name="password"]`, "ada-password"),
		chromedp.Click(`button[type="submit"]`),
		chromedp.WaitVisible(chromedp.ID("current-user")),
	)
	if err != nil {
		t.Fatal(err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("current-user")))
	if err != nil || !strings.Contains(who, "ada@example.com") {
		t.Fatalf("signed in as %q (%v)", who, err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != base+"/" {
		t.Fatalf("after sign-in at %q (%v), want the dashboard", loc, err)
	}
	screenshot(t, ctx, "52-signin-oidc-dashboard")

	// The mapped administrator sees the users page.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/users"), chromedp.WaitVisible(`body`)); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(`main`))
	if err != nil || !strings.Contains(body, "ada@example.com") || !strings.Contains(body, "admin") {
		t.Fatalf("users page as ada: %q (%v)", body, err)
	}
}
