package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// signInBrowser signs the browser of ctx in as admin.
func signInBrowser(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/signin"),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("current-user")),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// wantSignInPage fails t unless the browser of ctx, opening the dashboard,
// lands on the sign-in page.
func wantSignInPage(t *testing.T, ctx context.Context, base, what string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("signin-form"))); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != base+"/signin" {
		t.Fatalf("%s: at %q (%v), want the sign-in page", what, loc, err)
	}
}

func wantDashboard(t *testing.T, ctx context.Context, base, what string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("current-user"))); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// sessionCount is the number of sessions the account page lists.
func sessionCount(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#session-list li").length`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBrowserSessions: the setup page refuses a wrong setup code and takes
// the logged one; two browsers (separate cookie jars) sign in; the account
// page lists both; "sign out everywhere else" ends the other one, sign-out
// ends only its own, "sign out everywhere" ends both.
func TestBrowserSessions(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	a := newBrowser(t)

	// A wrong setup code is refused in place; the logged one works.
	err := chromedp.Do(a,
		chromedp.Navigate(base+"/setup"),
		chromedp.WaitVisible(chromedp.ID("setup-form")),
		chromedp.SendKeys(chromedp.ID("setup_code"), "AAAA-BBBB-CCCC"),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("setup_code-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(a, chromedp.Text(chromedp.ID("setup_code-error")))
	if err != nil || !strings.HasPrefix(msg, "Setup code: wrong") {
		t.Fatalf("setup code error %q (%v)", msg, err)
	}
	screenshot(t, a, "40-setup-code-wrong")
	setupAndSignIn(t, a, base)

	// A second browser with its own cookies.
	b, cancel := chromedp.NewContext(a, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	signInBrowser(t, b, base)

	// Both sessions are listed; this one is marked.
	err = chromedp.Do(a,
		chromedp.Click(chromedp.ID("current-user")),
		chromedp.WaitVisible(chromedp.ID("session-list")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if n := sessionCount(t, a); n != 2 {
		t.Fatalf("%d sessions listed, want 2", n)
	}
	first, err := chromedp.Run(a, chromedp.Text(chromedp.CSS("#session-list li:first-child")))
	if err != nil || !strings.Contains(first, "This session") || !strings.Contains(first, "Headless Chrome") || !strings.Contains(first, "127.0.0.1") {
		t.Errorf("first session %q (%v): want this session, the browser and the address", first, err)
	}
	screenshot(t, a, "41-sessions")

	// Sign out everywhere else: the other browser is out, this one stays.
	err = chromedp.Do(a,
		chromedp.Click(chromedp.ID("end-others")),
		chromedp.WaitVisible(chromedp.ID("sessions-message")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(a, chromedp.Text(chromedp.ID("sessions-message"))); err != nil || msg != "Signed out of 1 other session." {
		t.Errorf("message %q (%v)", msg, err)
	}
	if n := sessionCount(t, a); n != 1 {
		t.Errorf("%d sessions listed after signing out elsewhere, want 1", n)
	}
	screenshot(t, a, "42-signed-out-elsewhere")
	wantSignInPage(t, b, base, "the other browser after “sign out everywhere else”")
	screenshot(t, b, "43-other-browser-signed-out")
	wantDashboard(t, a, base, "this browser after “sign out everywhere else”")

	// Sign out ends only this browser's session.
	signInBrowser(t, b, base)
	err = chromedp.Do(a,
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	wantSignInPage(t, a, base, "this browser after signing out")
	wantDashboard(t, b, base, "the other browser after this one signed out")

	// Sign out everywhere ends both.
	signInBrowser(t, a, base)
	err = chromedp.Do(a,
		chromedp.Navigate(base+"/account"),
		chromedp.WaitVisible(chromedp.ID("end-all")),
		chromedp.EmulateViewport(375, 900),
	)
	if err != nil {
		t.Fatal(err)
	}
	noSidewaysScroll(t, a, "the account page at 375 px")
	screenshot(t, a, "44-account-375px")
	err = chromedp.Do(a,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Click(chromedp.ID("end-all")),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	wantSignInPage(t, a, base, "this browser after “sign out everywhere”")
	wantSignInPage(t, b, base, "the other browser after “sign out everywhere”")
	screenshot(t, b, "45-signed-out-everywhere")
}

func TestBrowserSetupSignInDashboard(t *testing.T) {
	dataDir := newDataDir(t)
	base, _ := startSked(t, dataDir)
	ctx := newBrowser(t)

	// A fresh Sked sends everyone to the setup page.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("setup-form"))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || loc != base+"/setup" {
		t.Fatalf("fresh Sked at %q (%v), want %s/setup", loc, err, base)
	}
	screenshot(t, ctx, "01-setup")

	// A mismatched password is shown in place, without leaving the page:
	// htmx swaps the form (a marker set on the page survives), which also
	// shows that htmx works under the Content-Security-Policy.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 42")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("setup_code"), setupCode(t, base)),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password124"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("confirm-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("confirm-error")))
	if err != nil || !strings.Contains(msg, "does not match") {
		t.Fatalf("confirm error %q (%v)", msg, err)
	}
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); err != nil || marker != 42 {
		t.Fatalf("the setup error reloaded the page instead of swapping the form in place (marker %d, %v)", marker, err)
	}
	screenshot(t, ctx, "02-setup-error")

	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("dashboard-empty")),
	)
	if err != nil {
		t.Fatal(err)
	}
	user, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("current-user")))
	if err != nil || user != "admin" {
		t.Fatalf("dashboard user %q (%v)", user, err)
	}
	screenshot(t, ctx, "03-dashboard-empty")

	// Sign out, fail once, then sign in.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "wrong-password"),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("signin-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err = chromedp.Run(ctx, chromedp.Text(chromedp.ID("signin-error")))
	if err != nil || msg != "Unknown user name or wrong password." {
		t.Fatalf("sign-in error %q (%v)", msg, err)
	}
	screenshot(t, ctx, "04-signin-error")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("dashboard-empty")),
	)
	if err != nil {
		t.Fatal(err)
	}

	// Readable on a phone.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 740), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("dashboard-empty"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "05-dashboard-375px")
}
