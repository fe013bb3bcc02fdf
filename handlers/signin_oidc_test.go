package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"sked/handlers"
	"sked/models"
	"sked/oidcauth"
	"sked/oidcauth/oidctest"
)

// oidcApp is a Sked server signing in through a real OpenID provider
// (oidctest, the zitadel example provider) started in the test.
type oidcApp struct {
	*app
	provider *oidctest.Provider
}

func newOIDCApp(t *testing.T, settings oidcauth.Settings, users ...oidctest.User) *oidcApp {
	t.Helper()
	p := oidctest.Start(t, users...)
	settings.Issuer, settings.ClientID, settings.ClientSecret = p.Issuer, oidctest.ClientID, oidctest.ClientSecret
	a := newApp(t, false, func(d *handlers.Deps) { d.OIDC = oidcauth.NewClient(settings, nil) })
	p.SetRedirectURI(a.srv.URL + "/signin/oidc/callback")
	a.setupAdmin("root", "correct horse battery")
	return &oidcApp{app: a, provider: p}
}

var loginIDPattern = regexp.MustCompile(`name="id" value="([^"]+)"`)

// oidcSignIn signs in as username at the provider with a new browser
// (cookie jar, following redirects) starting at path, and returns the
// last response and its body.
func (o *oidcApp) oidcSignIn(t *testing.T, path, username, password string) (*http.Response, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	resp, err := client.Get(o.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := loginIDPattern.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.String(), o.provider.Issuer+"/login/") || m == nil {
		t.Fatalf("GET %s ended at %s (%d), not the provider's login page:\n%s", path, resp.Request.URL, resp.StatusCode, body)
	}
	resp, err = client.PostForm(o.provider.Issuer+"/login/username", url.Values{
		"id": {string(m[1])}, "username": {username}, "password": {password},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	return resp, string(body)
}

var (
	ada = oidctest.User{ID: "sub-ada", Username: "ada", Password: "ada-password", Email: "ada@example.com", EmailVerified: true, Groups: []string{"sked-admins", "team-a"}}
	bob = oidctest.User{ID: "sub-bob", Username: "bob", Password: "bob-password", Email: "bob@example.com", EmailVerified: true}
	eve = oidctest.User{ID: "sub-eve", Username: "eve", Password: "eve-password", Email: "eve@example.org", EmailVerified: true, Groups: []string{"sked-admins"}}
)

func oidcSettings(t *testing.T) oidcauth.Settings {
	roles, err := oidcauth.ParseRoleMap("sked-admins=admin;team-a=default:editor")
	if err != nil {
		t.Fatal(err)
	}
	return oidcauth.Settings{Name: "Example SSO", AllowedDomains: []string{"example.com"}, RoleClaim: "groups", RoleMap: roles}
}

// TestOIDCSignIn signs in through the provider's login page: the first
// sign-in creates the user with the mapped admin flag and membership and
// goes to next; the second reuses the user; a user without mapped groups
// gets neither.
func TestOIDCSignIn(t *testing.T) {
	o := newOIDCApp(t, oidcSettings(t), ada, bob)
	ctx := context.Background()

	r := o.get("/signin")
	wantStatus(t, r, http.StatusOK)
	if link, _ := r.doc.Find("#signin-oidc").Attr("href"); link != "/signin/oidc" || r.doc.Find("#signin-oidc").Text() != "Sign in with Example SSO" {
		t.Errorf("sign-in button: href %q, text %q", link, r.doc.Find("#signin-oidc").Text())
	}

	resp, body := o.oidcSignIn(t, "/signin/oidc?next=/account", "ada", "ada-password")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/account" || !strings.Contains(body, "ada@example.com") {
		t.Fatalf("first sign-in ended at %s (%d):\n%s", resp.Request.URL, resp.StatusCode, body)
	}
	user, err := o.store.UserByName(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !user.IsAdmin || user.PasswordHash != "" {
		t.Errorf("created user = %+v, want an administrator without a password", user)
	}
	if role, ok, err := o.store.MemberRole(ctx, models.DefaultWorkspaceID, user.ID); err != nil || !ok || role != models.RoleMember {
		t.Errorf("membership of default = %q %v %v", role, ok, err)
	}
	ids, err := o.store.IdentitiesOf(ctx, user.ID)
	if err != nil || len(ids) != 1 || ids[0].Issuer != o.provider.Issuer || ids[0].Subject != "sub-ada" {
		t.Errorf("identities = %+v, %v", ids, err)
	}

	resp, _ = o.oidcSignIn(t, "/signin/oidc", "ada", "ada-password")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" {
		t.Fatalf("second sign-in ended at %s (%d)", resp.Request.URL, resp.StatusCode)
	}
	users, err := o.store.Users(ctx)
	if err != nil || len(users) != 2 {
		t.Errorf("users after the second sign-in = %d, %v; want root and ada", len(users), err)
	}

	resp, _ = o.oidcSignIn(t, "/signin/oidc", "bob", "bob-password")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" {
		t.Fatalf("bob's sign-in ended at %s (%d)", resp.Request.URL, resp.StatusCode)
	}
	bobUser, err := o.store.UserByName(ctx, "bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := o.store.MemberRole(ctx, models.DefaultWorkspaceID, bobUser.ID); ok || bobUser.IsAdmin {
		t.Errorf("bob is admin %v or a member of default %v; his groups map to nothing", bobUser.IsAdmin, ok)
	}
	// A password never signs in as a user made by OpenID Connect.
	if _, err := o.store.Authenticate(ctx, "bob@example.com", ""); err == nil {
		t.Error("empty password signs in as bob")
	}
}

// TestOIDCSignInRefused checks the refusals at the callback: an email
// domain not allowed (a clear message, no user), a disabled user, a state
// that is not the flow's, and a callback without a flow.
func TestOIDCSignInRefused(t *testing.T) {
	o := newOIDCApp(t, oidcSettings(t), ada, eve)
	ctx := context.Background()

	resp, body := o.oidcSignIn(t, "/signin/oidc", "eve", "eve-password")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "Your email address is not in a domain that may sign in to Sked") {
		t.Errorf("eve: status %d\n%s", resp.StatusCode, body)
	}
	if _, err := o.store.UserByName(ctx, "eve@example.org"); err == nil {
		t.Error("eve's user was created")
	}

	o.oidcSignIn(t, "/signin/oidc", "ada", "ada-password")
	user, err := o.store.UserByName(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.store.SetUserDisabled(ctx, user.ID, true); err != nil {
		t.Fatal(err)
	}
	resp, body = o.oidcSignIn(t, "/signin/oidc", "ada", "ada-password")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "This account is disabled") {
		t.Errorf("disabled ada: status %d\n%s", resp.StatusCode, body)
	}

	// A callback without the flow cookie, and one whose state is not the
	// flow's.
	r := o.get("/signin/oidc/callback?state=x&code=y")
	wantStatus(t, r, http.StatusBadRequest)
	r = o.get("/signin/oidc")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), o.provider.Issuer+"/auth?") {
		t.Fatalf("start: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	loc, _ := url.Parse(r.Header.Get("Location"))
	q := loc.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		t.Errorf("authorization request lacks PKCE, nonce or state: %s", loc.RawQuery)
	}
	r = o.get("/signin/oidc/callback?state=forged&code=y")
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "The sign-in could not be completed") {
		t.Errorf("forged state: %s", r.body)
	}
}

// TestOIDCOff checks that without OpenID Connect the sign-in page has no
// button and its routes answer 404.
func TestOIDCOff(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("root", "correct horse battery")
	r := a.get("/signin")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#signin-oidc").Length() != 0 {
		t.Error("button shown without OpenID Connect")
	}
	wantStatus(t, a.get("/signin/oidc"), http.StatusNotFound)
	wantStatus(t, a.get("/signin/oidc/callback?state=x&code=y"), http.StatusNotFound)
}

// TestOIDCCallbackThrottled checks that failed callbacks count against
// the client address in the sign-in throttle, which password sign-ins
// share.
func TestOIDCCallbackThrottled(t *testing.T) {
	o := newOIDCApp(t, oidcSettings(t))
	for i := 0; i < 20; i++ {
		wantStatus(t, o.get("/signin/oidc/callback?state=x&code=y"), http.StatusBadRequest)
	}
	r := o.get("/signin/oidc/callback?state=x&code=y")
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many failed sign-ins") {
		t.Errorf("429 without Retry-After or message: %v\n%s", r.Header, r.body)
	}
	tok := o.csrf("/signin")
	r = o.post("/signin", url.Values{"csrf_token": {tok}, "username": {"root"}, "password": {"correct horse battery"}})
	wantStatus(t, r, http.StatusTooManyRequests)
}

// TestOIDCSignInClaimsFromUserinfo signs in at a provider whose ID tokens
// carry neither email, profile nor groups (they are served only at its
// userinfo endpoint): the first sign-in still creates the user by the
// verified email, with the admin flag and membership the groups map to.
func TestOIDCSignInClaimsFromUserinfo(t *testing.T) {
	o := newOIDCApp(t, oidcSettings(t), ada)
	o.provider.ClaimsInUserinfoOnly()
	ctx := context.Background()

	resp, body := o.oidcSignIn(t, "/signin/oidc?next=/account", "ada", "ada-password")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/account" || !strings.Contains(body, "ada@example.com") {
		t.Fatalf("first sign-in ended at %s (%d):\n%s", resp.Request.URL, resp.StatusCode, body)
	}
	user, err := o.store.UserByName(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !user.IsAdmin {
		t.Errorf("created user = %+v, want an administrator (groups from userinfo)", user)
	}
	if role, ok, err := o.store.MemberRole(ctx, models.DefaultWorkspaceID, user.ID); err != nil || !ok || role != models.RoleMember {
		t.Errorf("membership of default = %q %v %v, want the role team-a maps to", role, ok, err)
	}
}
