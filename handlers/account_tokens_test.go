package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"sked/models"
)

func TestTokensPage(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "password123")

	wantRedirect(t, a.get("/tokens"), "/signin?next=%2Ftokens")

	u := a.acctSignIn("ada", "password123")
	r := u.get("/tokens")
	wantStatus(t, r, http.StatusOK)
	wantLabels(t, r.doc, "token-name")
	wantAllLabelled(t, r.doc)
	if r.doc.Find("#tokens-empty").Length() != 1 {
		t.Error("no tokens, and the page does not say so")
	}
	if cur, _ := r.doc.Find(`nav a[href="/tokens"]`).Attr("aria-current"); cur != "page" {
		t.Errorf("the API tokens nav link is not marked current (%q)", cur)
	}
	if r.doc.Find(`nav a[href="/users"]`).Length() != 1 {
		t.Error("no Users link in the nav for an administrator")
	}
	if r.doc.Find(`#workspaces a[href="/workspaces/default/members"]`).Length() != 1 {
		t.Error("the tokens page does not link to the members of the default workspace")
	}

	// Without or with a wrong CSRF token: refused, nothing created.
	r = a.do(u.client, http.MethodPost, "/tokens", url.Values{"name": {"ci"}}, nil)
	wantStatus(t, r, http.StatusForbidden)
	r = a.do(u.client, http.MethodPost, "/tokens", url.Values{"name": {"ci"}},
		http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {"wrong"}})
	wantStatus(t, r, http.StatusForbidden)
	if toks, _ := a.store.TokensOf(ctx, ada.ID); len(toks) != 0 {
		t.Fatalf("a post without the CSRF token created %d tokens", len(toks))
	}

	// Invalid names: the form comes back with the error in place.
	r = u.hx("/tokens", url.Values{"name": {"  "}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "tokens")
	if got := r.doc.Find("#token-name-error").Text(); !strings.Contains(got, "The name is required") {
		t.Errorf("empty name: error %q", got)
	}
	if inv, _ := r.doc.Find("#token-name").Attr("aria-invalid"); inv != "true" {
		t.Errorf("the invalid name input is not aria-invalid (%q)", inv)
	}
	long := strings.Repeat("x", 101)
	r = u.post("/tokens", url.Values{"name": {long}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find("nav").Length() != 1 {
		t.Error("a plain form post did not get the whole page")
	}
	if got := r.doc.Find("#token-name-error").Text(); got != "The name is 101 characters, over the maximum of 100." {
		t.Errorf("long name: error %q", got)
	}
	if v, _ := r.doc.Find("#token-name").Attr("value"); v != long {
		t.Error("the name was not kept in the re-rendered form")
	}
	if toks, _ := a.store.TokensOf(ctx, ada.ID); len(toks) != 0 {
		t.Fatalf("invalid posts created %d tokens", len(toks))
	}

	// Create with htmx: the fragment shows the token once.
	r = u.hx("/tokens", url.Values{"name": {"ci"}})
	wantStatus(t, r, http.StatusOK)
	wantFragment(t, r, "tokens")
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the response with a new token has Cache-Control %q, want no-store", cc)
	}
	secret := strings.TrimSpace(r.doc.Find(`code[data-testid="new-token"]`).Text())
	if !strings.HasPrefix(secret, "sked_") || len(secret) < 40 {
		t.Fatalf("new token %q", secret)
	}
	if strings.Count(r.body, secret) != 1 {
		t.Errorf("the new token appears %d times in the response, want once", strings.Count(r.body, secret))
	}
	toks, err := a.store.TokensOf(ctx, ada.ID)
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens after create: %v, %v", toks, err)
	}
	ci := toks[0]
	row := r.doc.Find("#token-" + strconv.FormatInt(ci.ID, 10))
	if !hasBadge(row, "Active") || strings.TrimSpace(row.Find(`[data-testid="last-used"]`).Text()) != "never" {
		t.Errorf("new token row: badges %v, last used %q", badgeTexts(row), row.Find(`[data-testid="last-used"]`).Text())
	}
	if !strings.Contains(row.Text(), ci.Prefix+"…") {
		t.Errorf("the row does not show the prefix %s", ci.Prefix)
	}

	// The token works, and the list now shows its last use, never the secret.
	if st := u.previewStatus(secret); st != http.StatusOK {
		t.Fatalf("the new token does not authenticate: %d", st)
	}
	r = u.get("/tokens")
	wantStatus(t, r, http.StatusOK)
	wantAllLabelled(t, r.doc)
	if strings.Contains(r.body, secret) || r.doc.Find(`[data-testid="new-token"]`).Length() != 0 {
		t.Fatal("a second GET /tokens shows the token again")
	}
	row = r.doc.Find("#token-" + strconv.FormatInt(ci.ID, 10))
	if dt, ok := row.Find(`[data-testid="last-used"] time`).Attr("datetime"); !ok || dt == "" {
		t.Errorf("last use not shown after using the token: %q", row.Find(`[data-testid="last-used"]`).Text())
	}

	// Create without htmx: the whole page, with the token.
	r = u.post("/tokens", url.Values{"name": {"deploy"}})
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("nav").Length() != 1 || r.doc.Find(`[data-testid="new-token"]`).Length() != 1 {
		t.Error("a plain create did not render the page with the new token")
	}
	if r.doc.Find("#token-list > li").Length() != 2 {
		t.Errorf("%d tokens listed, want 2", r.doc.Find("#token-list > li").Length())
	}

	// Revoke: a button in a form, confirmed by htmx.
	revokePath := "/tokens/" + strconv.FormatInt(ci.ID, 10) + "/revoke"
	form := r.doc.Find(`form[action="` + revokePath + `"]`)
	if form.Find("button#revoke-"+strconv.FormatInt(ci.ID, 10)).Length() != 1 {
		t.Fatal("no revoke button in a form")
	}
	if c, _ := form.Attr("hx-confirm"); !strings.Contains(c, "Revoke the token “ci”") {
		t.Errorf("revoke asks %q", c)
	}
	wantStatus(t, a.do(u.client, http.MethodPost, revokePath, url.Values{"csrf_token": {"wrong"}}, nil), http.StatusForbidden)
	if st := u.previewStatus(secret); st != http.StatusOK {
		t.Fatalf("a revoke with a wrong CSRF token revoked the token (%d)", st)
	}
	r = u.hx(revokePath, nil)
	wantStatus(t, r, http.StatusOK)
	wantFragment(t, r, "tokens")
	if got := r.doc.Find("#tokens-message").Text(); !strings.Contains(got, "“ci” revoked") {
		t.Errorf("status message %q", got)
	}
	row = r.doc.Find("#token-" + strconv.FormatInt(ci.ID, 10))
	if !hasBadge(row, "Revoked") || row.Find("button").Length() != 0 {
		t.Errorf("revoked row: badges %v, %d buttons", badgeTexts(row), row.Find("button").Length())
	}
	if st := u.previewStatus(secret); st != http.StatusUnauthorized {
		t.Errorf("a revoked token gets %d at /api/v1/preview, want 401", st)
	}

	// Another user's token, an unknown id, a malformed id: 404.
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	bobTok, bobSecret, err := a.store.CreateToken(ctx, bob.ID, "bob's")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, u.hx("/tokens/"+strconv.FormatInt(bobTok.ID, 10)+"/revoke", nil), http.StatusNotFound)
	wantStatus(t, u.post("/tokens/999999/revoke", nil), http.StatusNotFound)
	wantStatus(t, u.post("/tokens/abc/revoke", nil), http.StatusNotFound)
	if st := u.previewStatus(bobSecret); st != http.StatusOK {
		t.Errorf("ada revoked bob's token (%d)", st)
	}
	// Bob's page lists his token only, and no Users link.
	b := a.acctSignIn("bob", "password123")
	r = b.get("/tokens")
	wantStatus(t, r, http.StatusOK)
	if n := r.doc.Find("#token-list > li").Length(); n != 1 || !strings.Contains(r.doc.Find("#token-list").Text(), "bob's") {
		t.Errorf("bob sees %d tokens: %s", n, r.doc.Find("#token-list").Text())
	}
	if r.doc.Find(`nav a[href="/users"]`).Length() != 0 {
		t.Error("a non-administrator sees the Users link")
	}
}
