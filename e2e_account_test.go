package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// previewStatus calls the REST API's preview with token and returns the
// status.
func previewStatus(t *testing.T, base, token string) int {
	t.Helper()
	body := `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "day"}}`
	req, err := http.NewRequest(http.MethodPost, base+"/api/v1/preview", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBrowserAccountPages creates an API token (shown once), uses it,
// revokes it with the keyboard, and adds a user, at 1280 and 375 px.
func TestBrowserAccountPages(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	dialogs := acceptDialogs(ctx)
	setupAndSignIn(t, ctx, base)

	for i, width := range []int64{1280, 375} {
		w := fmt.Sprint(width)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}

		// The link in the header's menu leads to the tokens page.
		err := chromedp.Do(ctx,
			chromedp.Navigate(base+"/"),
			chromedp.Click(chromedp.ID("nav-more-button")),
			chromedp.Click(chromedp.CSS(`nav a[href="/tokens"]`)),
			chromedp.WaitVisible(chromedp.ID("token-form")),
		)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			screenshot(t, ctx, "account-01-tokens-empty-"+w)
		}

		// Keyboard: the name field, Tab to the button; Enter creates.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 5")); err != nil {
			t.Fatal(err)
		}
		name := "ci-" + w
		err = chromedp.Do(ctx,
			chromedp.Focus(chromedp.ID("token-name")),
			chromedp.KeyEvent(name),
			chromedp.KeyEvent("\t"),
		)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.activeElement.id")); err != nil || id != "token-create" {
			t.Errorf("Tab from the name field reaches %q, want the create button (%v)", id, err)
		}
		err = chromedp.Do(ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-token"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 5 {
			t.Error("creating a token reloaded the page instead of swapping #tokens")
		}
		token, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="new-token"]`)))
		if err != nil || !strings.HasPrefix(token, "sked_") {
			t.Fatalf("new token %q (%v)", token, err)
		}
		count, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.body.innerHTML.split(%q).length - 1`, token)))
		if err != nil || count != 1 {
			t.Errorf("the token appears %d times on the page, want once (%v)", count, err)
		}
		// The copy button copies the token (or, without clipboard access,
		// selects it).
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("new-token-copy")), chromedp.Sleep(300*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		copied, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
			`document.getElementById("new-token-copy").textContent === "Copied" || window.getSelection().toString().trim() === %q`, token)))
		if err != nil || !copied {
			t.Errorf("the copy button neither copied nor selected the token (%v)", err)
		}
		noSidewaysScroll(t, ctx, "the tokens page at "+w+" px")
		screenshot(t, ctx, "account-02-token-created-"+w)
		if st := previewStatus(t, base, token); st != http.StatusOK {
			t.Fatalf("the new token gets %d from the API", st)
		}

		// Shown once: a reload does not show it; the list says it was used.
		err = chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("token-list")))
		if err != nil {
			t.Fatal(err)
		}
		html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
		if err != nil || strings.Contains(html, token) || strings.Contains(html, `data-testid="new-token"`) {
			t.Fatalf("the token is shown again after a reload (%v)", err)
		}
		used, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#token-list > li:first-child [data-testid="last-used"]`)))
		if err != nil || used == "never" {
			t.Errorf("last use after an API call: %q (%v)", used, err)
		}

		// Revoke with the keyboard; htmx asks first.
		err = chromedp.Do(ctx,
			chromedp.Focus(chromedp.CSS(`#token-list > li:first-child button`)),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.ID("tokens-message")),
		)
		if err != nil {
			t.Fatal(err)
		}
		if d := dialogs(); len(d) != i+1 || !strings.Contains(d[i], "Revoke the token “"+name+"”") {
			t.Errorf("confirmations asked: %q", d)
		}
		badges, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#token-list > li:first-child p`)))
		if err != nil || !strings.Contains(badges, "Revoked") {
			t.Errorf("the revoked token's row says %q (%v)", badges, err)
		}
		if st := previewStatus(t, base, token); st != http.StatusUnauthorized {
			t.Errorf("the revoked token gets %d from the API, want 401", st)
		}
		screenshot(t, ctx, "account-03-token-revoked-"+w)

		// Users: a mistake shown in place, then the user added.
		user := "user" + w
		err = chromedp.Do(ctx,
			chromedp.Click(chromedp.ID("nav-more-button")),
			chromedp.Click(chromedp.CSS(`nav a[href="/users"]`)),
			chromedp.WaitVisible(chromedp.ID("user-form")),
			chromedp.SendKeys(chromedp.ID("username"), user),
			chromedp.SendKeys(chromedp.ID("password"), "password123"),
			chromedp.SendKeys(chromedp.ID("confirm"), "password124"),
			chromedp.Click(chromedp.ID("user-create")),
			chromedp.WaitVisible(chromedp.ID("confirm-error")),
		)
		if err != nil {
			t.Fatal(err)
		}
		screenshot(t, ctx, "account-04-users-error-"+w)
		err = chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("password"), "password123"),
			chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
			chromedp.Click(chromedp.ID("user-create")),
			chromedp.WaitVisible(chromedp.ID("users-message")),
			chromedp.WaitVisible(chromedp.CSS(`li[data-username="`+user+`"]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("users-message")))
		if err != nil || msg != "User "+user+" added." {
			t.Errorf("users message %q (%v)", msg, err)
		}
		noSidewaysScroll(t, ctx, "the users page at "+w+" px")
		screenshot(t, ctx, "account-05-users-"+w)

		// The members of the default workspace, new user included.
		err = chromedp.Do(ctx,
			chromedp.Navigate(base+"/workspaces/default/members"),
			chromedp.WaitVisible(chromedp.CSS(`#member-list li[data-username="`+user+`"]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		noSidewaysScroll(t, ctx, "the members page at "+w+" px")
		screenshot(t, ctx, "account-06-members-"+w)
	}
}
