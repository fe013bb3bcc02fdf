package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSetupFlow(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	code, ok, err := a.store.NewSetupCode(ctx, a.clock.Now()) // what sked serve logs
	if err != nil || !ok {
		t.Fatalf("NewSetupCode = %v, %v", ok, err)
	}

	wantRedirect(t, a.get("/"), "/setup")
	wantRedirect(t, a.get("/signin"), "/setup")

	page := a.get("/setup")
	wantStatus(t, page, http.StatusOK)
	for _, id := range []string{"setup_code", "username", "password", "confirm"} {
		if page.doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("setup form: no label for #%s", id)
		}
	}
	tok := a.csrf("/setup")
	valid := func(code string) url.Values {
		return url.Values{"csrf_token": {tok}, "setup_code": {code}, "username": {"admin"}, "password": {"password123"}, "confirm": {"password123"}}
	}

	// Without the CSRF token: refused, nothing created.
	r := a.post("/setup", url.Values{"setup_code": {code}, "username": {"admin"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusForbidden)
	if needs, _ := a.store.NeedsSetup(ctx); !needs {
		t.Fatal("a setup without CSRF token created the administrator")
	}

	// Invalid input: re-rendered with field errors, nothing created.
	r = a.post("/setup", url.Values{"csrf_token": {tok}, "username": {"bad name"}, "password": {"short"}, "confirm": {"other"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	for id, msg := range map[string]string{
		"setup_code": "Setup code: required",
		"username":   "User name must be 1 to 64 letters",
		"password":   "Password must be at least 8 characters",
		"confirm":    "does not match",
	} {
		if got := r.doc.Find("#" + id + "-error").Text(); !strings.Contains(got, msg) {
			t.Errorf("#%s-error = %q, want it to contain %q", id, got, msg)
		}
	}
	if v, _ := r.doc.Find("#username").Attr("value"); v != "bad name" {
		t.Errorf("the user name was not kept in the re-rendered form: %q", v)
	}
	if needs, _ := a.store.NeedsSetup(ctx); !needs {
		t.Fatal("an invalid setup created the administrator")
	}

	// A missing or wrong setup code: 422 naming it, nothing created.
	for _, bad := range []string{"", "AAAA-BBBB-CCCC", code[:13]} {
		r = a.post("/setup", valid(bad))
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if got := r.doc.Find("#setup_code-error").Text(); !strings.HasPrefix(strings.ToLower(got), "setup code: ") {
			t.Errorf("code %q: #setup_code-error = %q, want \"Setup code: …\"", bad, got)
		}
		if needs, _ := a.store.NeedsSetup(ctx); !needs {
			t.Fatalf("setup with code %q created the administrator", bad)
		}
	}

	// Valid: signed in and on the dashboard. The code is compared ignoring
	// case and spaces.
	r = a.post("/setup", valid(" "+strings.ToLower(code)+" "))
	wantRedirect(t, r, "/")
	dash := a.get("/")
	wantStatus(t, dash, http.StatusOK)
	if got := dash.doc.Find("#current-user").Text(); got != "admin" {
		t.Errorf("dashboard shows user %q, want admin", got)
	}
	if dash.doc.Find("#dashboard-empty").Length() != 1 {
		t.Error("the empty dashboard does not say so")
	}

	// Setup is closed now, for this browser and any other, even with the
	// right code.
	wantRedirect(t, a.get("/setup"), "/signin")
	tok = a.csrf("/")
	r = a.post("/setup", url.Values{"csrf_token": {tok}, "setup_code": {code}, "username": {"second"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusNotFound)
	if _, err := a.store.UserByName(ctx, "second"); err == nil {
		t.Error("setup created a second administrator")
	}
}

func TestSetupCodeAttemptsAreThrottled(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	code, _, err := a.store.NewSetupCode(ctx, a.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	tok := a.csrf("/setup")
	try := func(code string) *response {
		return a.post("/setup", url.Values{"csrf_token": {tok}, "setup_code": {code}, "username": {"admin"}, "password": {"password123"}, "confirm": {"password123"}})
	}
	for i := range 5 {
		if r := try("WRNG-WRNG-WRNG"); r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("wrong code %d: status %d, want 422", i+1, r.StatusCode)
		}
	}
	// Straight after the fifth wrong code, even the right one must wait.
	r := try(code)
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") != "1" || !strings.Contains(r.doc.Find("#setup_code-error").Text(), "Try again in 1 seconds") {
		t.Errorf("throttled setup: Retry-After %q, error %q", r.Header.Get("Retry-After"), r.doc.Find("#setup_code-error").Text())
	}
	if needs, _ := a.store.NeedsSetup(ctx); !needs {
		t.Fatal("a throttled setup created the administrator")
	}
	a.clock.Advance(time.Second)
	wantRedirect(t, try(code), "/")
}

func TestSignInAndOut(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")

	wantRedirect(t, a.get("/"), "/signin")
	wantRedirect(t, a.get("/?x=1"), "/signin?next=%2F%3Fx%3D1")
	tok := a.csrf("/signin?next=/somewhere")

	wrong := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"wrong-password"}})
	wantStatus(t, wrong, http.StatusUnprocessableEntity)
	unknown := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"nobody"}, "password": {"wrong-password"}})
	wantStatus(t, unknown, http.StatusUnprocessableEntity)
	wm, um := wrong.doc.Find("#signin-error").Text(), unknown.doc.Find("#signin-error").Text()
	if wm == "" || wm != um {
		t.Errorf("wrong password says %q, unknown user says %q: want one and the same message", wm, um)
	}

	empty := a.post("/signin", url.Values{"csrf_token": {tok}})
	wantStatus(t, empty, http.StatusUnprocessableEntity)
	if empty.doc.Find("#username-error").Text() == "" || empty.doc.Find("#password-error").Text() == "" {
		t.Errorf("empty sign-in form shows no field errors:\n%s", empty.body)
	}

	r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ADA"}, "password": {"password123"}, "next": {"/somewhere"}})
	wantRedirect(t, r, "/somewhere")
	wantStatus(t, a.get("/"), http.StatusOK)

	// Sign out needs the (new) CSRF token: without it nothing happens.
	wantStatus(t, a.post("/signout", url.Values{}), http.StatusForbidden)
	wantStatus(t, a.get("/"), http.StatusOK)
	tok = a.csrf("/")
	wantRedirect(t, a.post("/signout", url.Values{"csrf_token": {tok}}), "/signin")
	wantRedirect(t, a.get("/"), "/signin")
}

func TestSignInRefusesOffsiteNext(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	for _, next := range []string{"//evil.example/", "https://evil.example/", `/\evil.example`, "javascript:alert(1)"} {
		c := newClient()
		a.client = c
		tok := a.csrf("/signin")
		r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}, "next": {next}})
		wantRedirect(t, r, "/")
	}
}

func TestCSRFTokenFromAnotherSessionIsRefused(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	other := a.csrf("/signin")
	a.client = newClient() // a different browser with its own session
	r := a.post("/signin", url.Values{"csrf_token": {other}, "username": {"ada"}, "password": {"password123"}})
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.body, "CSRF") {
		t.Errorf("the 403 page does not say what went wrong:\n%s", r.body)
	}
}

func TestSignInThrottleSlowsRepeatedFailures(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	tok := a.csrf("/signin")
	fail := func() *response {
		return a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"nope-nope"}})
	}
	for i := range 5 {
		if r := fail(); r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("attempt %d: status %d, want 422", i+1, r.StatusCode)
		}
	}
	// The sixth comes straight after the fifth failure: it must wait 1 s,
	// even with the right password.
	r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}})
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") != "1" || !strings.Contains(r.doc.Find("#signin-error").Text(), "Try again in 1 seconds") {
		t.Errorf("throttled answer: Retry-After %q, message %q", r.Header.Get("Retry-After"), r.doc.Find("#signin-error").Text())
	}
	a.clock.Advance(time.Second)
	wantStatus(t, fail(), http.StatusUnprocessableEntity) // sixth failure
	r = fail()
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") != "2" {
		t.Errorf("after six failures Retry-After = %q, want 2", r.Header.Get("Retry-After"))
	}
	a.clock.Advance(2 * time.Second)
	r = a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}})
	wantRedirect(t, r, "/")
}

func TestHTMXFormsGetFragments(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	tok := a.csrf("/signin")
	hx := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}}

	r := a.do(a.client, http.MethodPost, "/signin", url.Values{"username": {"ada"}, "password": {"wrong-one"}}, hx)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if strings.Contains(r.body, "<html") || r.doc.Find("form#signin-form").Length() != 1 {
		t.Fatalf("htmx error answer is not the form fragment alone:\n%s", r.body)
	}
	r = a.do(a.client, http.MethodPost, "/signin", url.Values{"username": {"ada"}, "password": {"password123"}}, hx)
	wantStatus(t, r, http.StatusOK)
	if r.Header.Get("HX-Redirect") != "/" {
		t.Errorf("htmx sign-in: HX-Redirect %q, want /", r.Header.Get("HX-Redirect"))
	}
	// A bad header token is refused even when the form has none.
	bad := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {"forged"}}
	wantStatus(t, a.do(a.client, http.MethodPost, "/signout", url.Values{}, bad), http.StatusForbidden)
}

func TestSessionCookieFlags(t *testing.T) {
	for _, secure := range []bool{false, true} {
		a := newApp(t, secure)
		a.setupAdmin("ada", "password123")
		r := a.get("/signin")
		var found bool
		for _, c := range r.Cookies() {
			if c.Name != "sked_session" {
				continue
			}
			found = true
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != secure {
				t.Errorf("secure=%v: cookie HttpOnly=%v SameSite=%v Secure=%v", secure, c.HttpOnly, c.SameSite, c.Secure)
			}
		}
		if !found {
			t.Errorf("secure=%v: no session cookie set", secure)
		}
	}
}

func TestDisabledUserIsSignedOut(t *testing.T) {
	a := newApp(t, false)
	u := a.setupAdmin("ada", "password123")
	a.signIn("ada", "password123")
	if err := a.store.SetUserDisabled(context.Background(), u.ID, true); err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, a.get("/"), "/signin")
	tok := a.csrf("/signin")
	r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}})
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.doc.Find("#signin-error").Text(), "disabled") {
		t.Errorf("disabled user message: %q", r.doc.Find("#signin-error").Text())
	}
}
