package handlers_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/handlers"
	"sked/models"
)

// sessionCookie is the value of the sked_session cookie client holds.
func (a *app) sessionCookie(client *http.Client) string {
	a.t.Helper()
	u, _ := url.Parse(a.srv.URL)
	for _, c := range client.Jar.Cookies(u) {
		if c.Name == "sked_session" {
			return c.Value
		}
	}
	return ""
}

// browser signs a new client in as username and returns it.
func (a *app) browser(username, password string) *http.Client {
	a.t.Helper()
	c := newClient()
	saved := a.client
	a.client = c
	a.signIn(username, password)
	a.client = saved
	return c
}

// withCookie is a new client holding only the session cookie value, as a
// browser that kept an old cookie would.
func (a *app) withCookie(value string) *http.Client {
	c := newClient()
	u, _ := url.Parse(a.srv.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "sked_session", Value: value, Path: "/"}})
	return c
}

// signedOut fails t unless the cookie value no longer opens the dashboard.
func (a *app) wantSignedOut(what, cookie string) {
	a.t.Helper()
	r := a.do(a.withCookie(cookie), http.MethodGet, "/", nil, nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/signin" {
		a.t.Errorf("%s: the old cookie still opens the dashboard (status %d, Location %q)", what, r.StatusCode, r.Header.Get("Location"))
	}
}

func (a *app) wantSignedIn(what, cookie string) {
	a.t.Helper()
	r := a.do(a.withCookie(cookie), http.MethodGet, "/", nil, nil)
	if r.StatusCode != http.StatusOK {
		a.t.Errorf("%s: the cookie no longer opens the dashboard (status %d, Location %q)", what, r.StatusCode, r.Header.Get("Location"))
	}
}

// csrfOf is the CSRF token of client's session, read from /account.
func (a *app) csrfOf(client *http.Client) string {
	a.t.Helper()
	r := a.do(client, http.MethodGet, "/account", nil, nil)
	wantStatus(a.t, r, http.StatusOK)
	tok, _ := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	return tok
}

func (a *app) postAs(client *http.Client, path string, form url.Values) *response {
	a.t.Helper()
	form.Set("csrf_token", a.csrfOf(client))
	return a.do(client, http.MethodPost, path, form, nil)
}

func TestSessionCookieHoldsOnlyAnOpaqueID(t *testing.T) {
	a := newApp(t, false)
	ada := a.setupAdmin("ada", "password123")
	a.csrf("/signin")
	anonymous := a.sessionCookie(a.client)
	a.signIn("ada", "password123")
	cookie := a.sessionCookie(a.client)

	raw, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil || len(raw) != 32 {
		t.Fatalf("cookie %q is not 32 random bytes in base64url (%v)", cookie, err)
	}
	if anonymous == "" || cookie == anonymous {
		t.Error("signing in kept the cookie of the anonymous visit (session fixation)")
	}

	// The database keeps the hash, never the id itself.
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var userID int64
	sum := sha256.Sum256([]byte(cookie))
	if err := db.QueryRow(`SELECT count(*), min(user_id) FROM sessions WHERE token_hash = $1`, sum[:]).Scan(&n, &userID); err != nil || n != 1 || userID != ada.ID {
		t.Fatalf("sessions with the cookie's hash: %d of user %d (%v)", n, userID, err)
	}
	var leaks int
	if err := db.QueryRow(`SELECT count(*) FROM sessions s WHERE strpos(s::text, $1) > 0 OR strpos(encode(token_hash, 'escape'), $1) > 0`, cookie).Scan(&leaks); err != nil || leaks != 0 {
		t.Errorf("%d session rows hold the cookie's value (%v)", leaks, err)
	}
	// A forged cookie naming the hash is worth nothing.
	a.wantSignedOut("the hash as a cookie", base64.RawURLEncoding.EncodeToString(sum[:])[:43])
	a.wantSignedIn("the real cookie", cookie)
}

func TestEveryWayOfEndingSessions(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	ada, err := a.store.CreateUser(context.Background(), models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	adminBrowser := a.browser("admin", "password123")

	t.Run("sign-out", func(t *testing.T) {
		b1, b2 := a.browser("ada", "password123"), a.browser("ada", "password123")
		c1, c2 := a.sessionCookie(b1), a.sessionCookie(b2)
		wantRedirect(t, a.postAs(b1, "/signout", url.Values{}), "/signin")
		a.wantSignedOut("after sign-out", c1)
		a.wantSignedIn("another browser after sign-out", c2)
	})
	t.Run("password change", func(t *testing.T) {
		b1, b2 := a.browser("ada", "password123"), a.browser("ada", "password123")
		c1, c2 := a.sessionCookie(b1), a.sessionCookie(b2)
		r := a.postAs(b1, "/account/password", url.Values{"current": {"password123"}, "password": {"password456"}, "confirm": {"password456"}})
		wantRedirect(t, r, "/account?password=changed")
		a.wantSignedOut("the changing browser's old cookie after a password change", c1)
		a.wantSignedOut("another browser after a password change", c2)
		// The browser that changed it goes on with a new session.
		if nc := a.sessionCookie(b1); nc == c1 || nc == "" {
			t.Error("the changing browser got no new session")
		} else {
			a.wantSignedIn("the changing browser's new cookie", nc)
		}
		page := a.do(b1, http.MethodGet, "/account?password=changed", nil, nil)
		if !strings.Contains(page.doc.Find("#password-message").Text(), "Password changed") {
			t.Errorf("no confirmation: %q", page.doc.Find("#password-message").Text())
		}
		// A wrong current password changes nothing and ends nothing.
		b3 := a.browser("ada", "password456")
		r = a.postAs(b3, "/account/password", url.Values{"current": {"nope-nope"}, "password": {"password789"}, "confirm": {"password789"}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if !strings.Contains(r.doc.Find("#current-error").Text(), "current password is wrong") {
			t.Errorf("#current-error = %q", r.doc.Find("#current-error").Text())
		}
		a.wantSignedIn("after a refused password change", a.sessionCookie(b3))
		if err := a.store.ResetPassword(context.Background(), ada.ID, "password123"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("administrator reset", func(t *testing.T) {
		b1 := a.browser("ada", "password123")
		c1 := a.sessionCookie(b1)
		r := a.postAs(adminBrowser, fmt.Sprintf("/users/%d/password", ada.ID), url.Values{"password": {"password123"}})
		wantStatus(t, r, http.StatusOK)
		a.wantSignedOut("after an administrator reset the password", c1)
		a.wantSignedIn("the administrator", a.sessionCookie(adminBrowser))
	})
	t.Run("disable user", func(t *testing.T) {
		b1 := a.browser("ada", "password123")
		c1 := a.sessionCookie(b1)
		wantStatus(t, a.postAs(adminBrowser, fmt.Sprintf("/users/%d/disable", ada.ID), url.Values{}), http.StatusOK)
		a.wantSignedOut("after the user was disabled", c1)
		// Enabling again does not bring the session back.
		wantStatus(t, a.postAs(adminBrowser, fmt.Sprintf("/users/%d/enable", ada.ID), url.Values{}), http.StatusOK)
		a.wantSignedOut("after the user was enabled again", c1)
	})
	t.Run("sign out everywhere else", func(t *testing.T) {
		b1, b2, b3 := a.browser("ada", "password123"), a.browser("ada", "password123"), a.browser("ada", "password123")
		r := a.postAs(b1, "/account/sessions/end-others", url.Values{})
		wantStatus(t, r, http.StatusOK)
		if msg := r.doc.Find("#sessions-message").Text(); msg != "Signed out of 2 other sessions." {
			t.Errorf("message %q", msg)
		}
		a.wantSignedIn("the browser that asked", a.sessionCookie(b1))
		a.wantSignedOut("a second browser", a.sessionCookie(b2))
		a.wantSignedOut("a third browser", a.sessionCookie(b3))
	})
	t.Run("sign out everywhere", func(t *testing.T) {
		b1, b2 := a.browser("ada", "password123"), a.browser("ada", "password123")
		c1, c2 := a.sessionCookie(b1), a.sessionCookie(b2)
		wantRedirect(t, a.postAs(b1, "/account/sessions/end-all", url.Values{}), "/signin")
		a.wantSignedOut("the browser that asked", c1)
		a.wantSignedOut("another browser", c2)
		a.wantSignedIn("another user", a.sessionCookie(adminBrowser))
	})
	t.Run("end one session", func(t *testing.T) {
		b1, b2 := a.browser("ada", "password123"), a.browser("ada", "password123")
		page := a.do(b1, http.MethodGet, "/account", nil, nil)
		if n := page.doc.Find("#session-list li").Length(); n != 2 {
			t.Fatalf("%d sessions listed, want 2", n)
		}
		var other, current string
		page.doc.Find("#session-list li").Each(func(_ int, li *goquery.Selection) {
			id, _ := li.Attr("id")
			if strings.Contains(li.Text(), "This session") {
				current = strings.TrimPrefix(id, "session-")
			} else {
				other = strings.TrimPrefix(id, "session-")
			}
		})
		if other == "" || current == "" {
			t.Fatalf("no “this session” marker:\n%s", page.body)
		}
		// Another user cannot end it.
		wantStatus(t, a.postAs(adminBrowser, "/account/sessions/"+other+"/end", url.Values{}), http.StatusNotFound)
		a.wantSignedIn("after another user tried to end it", a.sessionCookie(b2))

		hx := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {a.csrfOf(b1)}}
		r := a.do(b1, http.MethodPost, "/account/sessions/"+other+"/end", url.Values{}, hx)
		wantStatus(t, r, http.StatusOK)
		if strings.Contains(r.body, "<html") || r.doc.Find("section#sessions").Length() != 1 || r.doc.Find("#session-list li").Length() != 1 {
			t.Errorf("htmx answer is not the sessions section with one session:\n%s", r.body)
		}
		a.wantSignedOut("the ended session", a.sessionCookie(b2))
		c1 := a.sessionCookie(b1)
		wantRedirect(t, a.postAs(b1, "/account/sessions/"+current+"/end", url.Values{}), "/signin")
		a.wantSignedOut("the current session ended from the list", c1)
	})
}

func TestSessionListShowsWhenWhereAndWhichBrowser(t *testing.T) {
	a := newApp(t, false, func(d *handlers.Deps) {
		d.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	a.setupAdmin("ada", "password123")
	ff := http.Header{"User-Agent": {"Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"}, "X-Forwarded-For": {"203.0.113.9"}}
	other := newClient()
	tok := ""
	{
		r := a.do(other, http.MethodGet, "/signin", nil, ff)
		tok, _ = r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	}
	wantRedirect(t, a.do(other, http.MethodPost, "/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}}, ff), "/")
	a.clock.Advance(5 * time.Minute)
	a.signIn("ada", "password123")
	page := a.get("/account")
	wantStatus(t, page, http.StatusOK)
	items := page.doc.Find("#session-list li")
	if items.Length() != 2 {
		t.Fatalf("%d sessions listed, want 2", items.Length())
	}
	first, second := items.Eq(0), items.Eq(1)
	if !strings.Contains(first.Text(), "This session") || strings.Contains(second.Text(), "This session") {
		t.Error("the current session is not first and marked")
	}
	if got := second.Find(`[data-testid="browser"]`).Text(); got != "Firefox 140 on Linux" {
		t.Errorf("browser %q", got)
	}
	if got := second.Find(`[data-testid="address"]`).Text(); got != "203.0.113.9" {
		t.Errorf("address %q, want the forwarded one", got)
	}
	if got := second.Find("time").First().AttrOr("datetime", ""); got != "2026-11-21T12:00:00Z" {
		t.Errorf("signed in at %q", got)
	}
	if got := first.Find(`[data-testid="address"]`).Text(); got != "127.0.0.1" {
		t.Errorf("address of the current session %q", got)
	}
	if page.doc.Find(`a#current-user[href="/account"]`).Length() != 1 {
		t.Error("the user name in the navigation does not lead to the account page")
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	a := newApp(t, false, func(d *handlers.Deps) {
		d.SessionIdleTimeout = 12 * time.Hour
		d.SessionMaxAge = 14 * 24 * time.Hour
	})
	a.setupAdmin("ada", "password123")

	// Idle: 11 h between requests is fine, 12 h ends the session.
	a.signIn("ada", "password123")
	cookie := a.sessionCookie(a.client)
	for range 3 {
		a.clock.Advance(11 * time.Hour)
		a.wantSignedIn("after 11 idle hours", cookie)
	}
	a.clock.Advance(12 * time.Hour)
	a.wantSignedOut("after 12 idle hours", cookie)

	// Absolute: used every 11 hours, the session still ends 14 days after
	// sign-in.
	a.client = newClient()
	a.signIn("ada", "password123")
	cookie = a.sessionCookie(a.client)
	start := a.clock.Now()
	for a.clock.Now().Add(11 * time.Hour).Before(start.Add(14 * 24 * time.Hour)) {
		a.clock.Advance(11 * time.Hour)
		a.wantSignedIn(fmt.Sprintf("after %v", a.clock.Now().Sub(start)), cookie)
	}
	a.clock.Advance(start.Add(14 * 24 * time.Hour).Sub(a.clock.Now()))
	a.wantSignedOut("14 days after sign-in", cookie)
}

func TestThrottleCountsTheRealClient(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	elsewhere := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		// forwarded: each failure claims another address; want429 says
		// whether the 21st failure from the same peer is slowed.
		want429 bool
	}{
		{"no trusted proxies: XFF ignored, the peer is counted", nil, true},
		{"peer not among the trusted proxies: XFF ignored", elsewhere, true},
		{"peer is a trusted proxy: the forwarded address is counted", loopback, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t, false, func(d *handlers.Deps) { d.TrustedProxies = tc.trusted })
			a.setupAdmin("ada", "password123")
			tok := a.csrf("/signin")
			var last *response
			for i := range 24 {
				// A new user name each time, so that only the address
				// counts.
				hdr := http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i+1)}}
				last = a.do(a.client, http.MethodPost, "/signin", url.Values{"csrf_token": {tok}, "username": {fmt.Sprintf("user%d", i)}, "password": {"wrong-password"}}, hdr)
				if last.StatusCode == http.StatusTooManyRequests {
					if !tc.want429 {
						t.Fatalf("failure %d was slowed although every attempt came from another forwarded address", i+1)
					}
					if i != 20 {
						t.Fatalf("slowed at attempt %d, want 21 (20 free per address)", i+1)
					}
					break
				}
			}
			if tc.want429 && last.StatusCode != http.StatusTooManyRequests {
				t.Fatal("24 failures from one peer with varying X-Forwarded-For were never slowed")
			}
			if !tc.want429 {
				// The same forwarded address 21 times is slowed.
				hdr := http.Header{"X-Forwarded-For": {"192.0.2.77"}}
				for i := range 21 {
					last = a.do(a.client, http.MethodPost, "/signin", url.Values{"csrf_token": {tok}, "username": {fmt.Sprintf("other%d", i)}, "password": {"wrong-password"}}, hdr)
				}
				wantStatus(t, last, http.StatusTooManyRequests)
			}
		})
	}
}

func TestPasswordChangeWithHTMX(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	a.signIn("ada", "password123")
	tok := a.csrf("/account")
	hx := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}}

	r := a.do(a.client, http.MethodPost, "/account/password", url.Values{"current": {"password123"}, "password": {"short"}, "confirm": {"short"}}, hx)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if strings.Contains(r.body, "<html") || r.doc.Find("section#password-section").Length() != 1 {
		t.Fatalf("htmx error answer is not the password section alone:\n%s", r.body)
	}
	if got := r.doc.Find("#password-error").Text(); !strings.Contains(got, "new password must be at least 8 characters") {
		t.Errorf("#password-error = %q", got)
	}
	r = a.do(a.client, http.MethodPost, "/account/password", url.Values{"current": {"password123"}, "password": {"password456"}, "confirm": {"password457"}}, hx)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#confirm-error").Text(); !strings.Contains(got, "does not match") {
		t.Errorf("#confirm-error = %q", got)
	}
	if _, err := a.store.Authenticate(context.Background(), "ada", "password123"); err != nil {
		t.Fatalf("a refused change changed the password: %v", err)
	}

	old := a.sessionCookie(a.client)
	r = a.do(a.client, http.MethodPost, "/account/password", url.Values{"current": {"password123"}, "password": {"password456"}, "confirm": {"password456"}}, hx)
	wantStatus(t, r, http.StatusOK)
	if got := r.Header.Get("HX-Redirect"); got != "/account?password=changed" {
		t.Errorf("HX-Redirect %q: the page must reload for its new CSRF token", got)
	}
	a.wantSignedOut("the old cookie after the change", old)
	// The new session's CSRF token works; the old one does not.
	wantStatus(t, a.do(a.client, http.MethodPost, "/account/sessions/end-others", url.Values{}, hx), http.StatusForbidden)
	wantStatus(t, a.do(a.client, http.MethodPost, "/account/sessions/end-others", url.Values{"csrf_token": {a.csrf("/account")}}, nil), http.StatusOK)
	if _, err := a.store.Authenticate(context.Background(), "ada", "password456"); err != nil {
		t.Errorf("the new password does not work: %v", err)
	}
}
