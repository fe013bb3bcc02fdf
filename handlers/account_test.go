package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
)

// acctUser is one signed-in browser of a test app.
type acctUser struct {
	a      *app
	client *http.Client
	csrf   string
}

// acctSignIn signs username in with a fresh client (its own cookies).
func (a *app) acctSignIn(username, password string) *acctUser {
	a.t.Helper()
	c := newClient()
	r := a.do(c, http.MethodGet, "/signin", nil, nil)
	tok, _ := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	r = a.do(c, http.MethodPost, "/signin", url.Values{"csrf_token": {tok}, "username": {username}, "password": {password}}, nil)
	wantRedirect(a.t, r, "/")
	u := &acctUser{a: a, client: c}
	r = u.get("/")
	wantStatus(a.t, r, http.StatusOK)
	u.csrf, _ = r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	return u
}

func (u *acctUser) get(path string) *response {
	return u.a.do(u.client, http.MethodGet, path, nil, nil)
}

// post sends a normal form post with the session's CSRF token.
func (u *acctUser) post(path string, form url.Values) *response {
	f := url.Values{"csrf_token": {u.csrf}}
	for k, v := range form {
		f[k] = v
	}
	return u.a.do(u.client, http.MethodPost, path, f, nil)
}

// hx posts as htmx does: CSRF token in the header, HX-Request set.
func (u *acctUser) hx(path string, form url.Values) *response {
	if form == nil {
		form = url.Values{}
	}
	return u.a.do(u.client, http.MethodPost, path, form, http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {u.csrf}})
}

// wantFragment checks that r is only the fragment #id, not a page.
func wantFragment(t *testing.T, r *response, id string) {
	t.Helper()
	if strings.Contains(r.body, "<html") || strings.Contains(r.body, "<nav") {
		t.Errorf("%s %s: htmx got a whole page, want the #%s fragment", r.Request.Method, r.Request.URL.Path, id)
	}
	if !strings.HasPrefix(strings.TrimSpace(r.body), `<section id="`+id+`"`) {
		t.Errorf("%s %s: fragment does not start with section#%s: %.200s", r.Request.Method, r.Request.URL.Path, id, r.body)
	}
}

// wantLabels checks that every id has a visible <label for>.
func wantLabels(t *testing.T, doc *goquery.Document, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if doc.Find("#"+id).Length() != 1 {
			t.Errorf("no control #%s", id)
		}
		l := doc.Find(`label[for="` + id + `"]`)
		if l.Length() != 1 || strings.TrimSpace(l.Text()) == "" || l.HasClass("sr-only") {
			t.Errorf("control #%s has no visible label", id)
		}
	}
}

// wantAllLabelled checks every control of the page's main part: inputs,
// selects and text areas have a visible <label for>, buttons have text.
func wantAllLabelled(t *testing.T, doc *goquery.Document) {
	t.Helper()
	doc.Find(`#main input:not([type="hidden"]), #main select, #main textarea`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		l := doc.Find(`label[for="` + id + `"]`)
		if id == "" || l.Length() != 1 || strings.TrimSpace(l.Text()) == "" || l.HasClass("sr-only") {
			name, _ := s.Attr("name")
			t.Errorf("control %q (id %q) has no visible label", name, id)
		}
	})
	doc.Find("#main button").Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) == "" {
			t.Errorf("a button has no text: %s", s.Parent().Text())
		}
	})
}

func badgeTexts(s *goquery.Selection) []string {
	var out []string
	s.Find("span.rounded").Each(func(_ int, b *goquery.Selection) { out = append(out, strings.TrimSpace(b.Text())) })
	return out
}

func hasBadge(s *goquery.Selection, text string) bool {
	for _, b := range badgeTexts(s) {
		if b == text {
			return true
		}
	}
	return false
}

func (u *acctUser) previewStatus(token string) int {
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}
	r := u.a.do(newClient(), http.MethodPost, "/api/v1/preview", nil, h, strings.NewReader(lastFridayBerlin+"}"))
	return r.StatusCode
}

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

func TestUsersPage(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "password123")
	if _, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"}); err != nil {
		t.Fatal(err)
	}

	// Not for non-administrators, not even with a valid CSRF token.
	b := a.acctSignIn("bob", "password123")
	r := b.get("/users")
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.doc.Find("#error").Text(), "Only administrators") {
		t.Errorf("403 page says %q", r.doc.Find("#error").Text())
	}
	wantStatus(t, b.post("/users", url.Values{"username": {"eve"}, "password": {"password123"}, "confirm": {"password123"}, "admin": {"on"}}), http.StatusForbidden)
	wantStatus(t, b.hx("/users/"+strconv.FormatInt(ada.ID, 10)+"/disable", nil), http.StatusForbidden)
	if _, err := a.store.UserByName(ctx, "eve"); !errors.Is(err, models.ErrNotFound) {
		t.Fatal("a non-administrator added a user")
	}
	wantRedirect(t, a.get("/users"), "/signin?next=%2Fusers")

	u := a.acctSignIn("ada", "password123")
	r = u.get("/users")
	wantStatus(t, r, http.StatusOK)
	wantLabels(t, r.doc, "username", "password", "confirm", "admin", "password-"+strconv.FormatInt(ada.ID, 10))
	wantAllLabelled(t, r.doc)
	self := r.doc.Find("#user-" + strconv.FormatInt(ada.ID, 10))
	if !hasBadge(self, "Administrator") || !hasBadge(self, "Active") {
		t.Errorf("ada's badges: %v", badgeTexts(self))
	}
	if self.Find(`form[action$="/disable"]`).Length() != 0 {
		t.Error("the administrator's own row offers to disable the account")
	}
	if r.doc.Find(`li[data-username="bob"] form[action$="/disable"] button`).Length() != 1 {
		t.Error("bob's row has no disable button")
	}

	// Wrong CSRF token: refused, nothing created.
	r = a.do(u.client, http.MethodPost, "/users", url.Values{"csrf_token": {"nope"}, "username": {"carol"}, "password": {"password123"}, "confirm": {"password123"}}, nil)
	wantStatus(t, r, http.StatusForbidden)
	if _, err := a.store.UserByName(ctx, "carol"); !errors.Is(err, models.ErrNotFound) {
		t.Fatal("a post with a wrong CSRF token added a user")
	}

	// Invalid input: the section comes back with every error in place.
	r = u.hx("/users", url.Values{"username": {"bad name"}, "password": {"short"}, "confirm": {"other"}, "admin": {"on"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "users")
	for id, msg := range map[string]string{
		"username": "User name must be 1 to 64 letters",
		"password": "Password must be at least 8 characters",
		"confirm":  "The repeated password does not match.",
	} {
		if got := r.doc.Find("#" + id + "-error").Text(); !strings.Contains(got, msg) {
			t.Errorf("#%s-error = %q, want %q", id, got, msg)
		}
	}
	if v, _ := r.doc.Find("#username").Attr("value"); v != "bad name" {
		t.Errorf("user name not kept: %q", v)
	}
	if _, checked := r.doc.Find("#admin").Attr("checked"); !checked {
		t.Error("the administrator box was not kept")
	}
	if strings.Contains(r.body, "short") {
		t.Error("the password was echoed back")
	}
	r = u.hx("/users", url.Values{"username": {"BOB"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#username-error").Text(); got != "User name is already taken." {
		t.Errorf("duplicate name: %q", got)
	}

	// Valid: added, listed, can sign in.
	r = u.hx("/users", url.Values{"username": {"carol"}, "password": {"password123"}, "confirm": {"password123"}})
	wantStatus(t, r, http.StatusOK)
	wantFragment(t, r, "users")
	if got := r.doc.Find("#users-message").Text(); got != "User carol added." {
		t.Errorf("message %q", got)
	}
	if v, _ := r.doc.Find("#username").Attr("value"); v != "" {
		t.Errorf("the form was not cleared after adding: %q", v)
	}
	carolRow := r.doc.Find(`li[data-username="carol"]`)
	if !hasBadge(carolRow, "Active") || hasBadge(carolRow, "Administrator") {
		t.Errorf("carol's badges: %v", badgeTexts(carolRow))
	}
	carol, err := a.store.UserByName(ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	cid := strconv.FormatInt(carol.ID, 10)
	c := a.acctSignIn("carol", "password123")
	_, _, err = a.store.CreateToken(ctx, carol.ID, "x")
	if err != nil {
		t.Fatal(err)
	}

	// An administrator cannot disable themself.
	r = u.hx("/users/"+strconv.FormatInt(ada.ID, 10)+"/disable", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "users")
	if got := r.doc.Find("#user-" + strconv.FormatInt(ada.ID, 10) + "-error").Text(); !strings.Contains(got, "You cannot disable your own account") {
		t.Errorf("self-disable error %q", got)
	}
	if me, _ := a.store.UserByID(ctx, ada.ID); me.Disabled {
		t.Fatal("the administrator disabled themself")
	}

	// Disable carol: badge, enable button; her session ends.
	wantStatus(t, a.do(u.client, http.MethodPost, "/users/"+cid+"/disable", url.Values{}, nil), http.StatusForbidden)
	if got, _ := a.store.UserByID(ctx, carol.ID); got.Disabled {
		t.Fatal("a disable without CSRF token disabled the user")
	}
	r = u.hx("/users/"+cid+"/disable", nil)
	wantStatus(t, r, http.StatusOK)
	carolRow = r.doc.Find("#user-" + cid)
	if !hasBadge(carolRow, "Disabled") || carolRow.Find("#enable-"+cid).Length() != 1 {
		t.Errorf("disabled carol: badges %v", badgeTexts(carolRow))
	}
	if !strings.Contains(r.doc.Find("#users-message").Text(), "carol disabled") {
		t.Errorf("message %q", r.doc.Find("#users-message").Text())
	}
	wantRedirect(t, c.get("/tokens"), "/signin?next=%2Ftokens")
	if _, err := a.store.Authenticate(ctx, "carol", "password123"); !errors.Is(err, models.ErrUserDisabled) {
		t.Errorf("disabled carol authenticates: %v", err)
	}
	r = u.post("/users/"+cid+"/enable", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("nav").Length() != 1 || !hasBadge(r.doc.Find("#user-"+cid), "Active") {
		t.Error("enable without htmx did not render the page with carol active")
	}

	// Reset carol's password.
	r = u.hx("/users/"+cid+"/password", url.Values{"password": {"short"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#password-" + cid + "-error").Text(); got != "Password must be at least 8 characters." {
		t.Errorf("reset error %q", got)
	}
	r = u.hx("/users/"+cid+"/password", url.Values{"password": {"brand new pass"}})
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#users-message").Text(); got != "Password of carol reset." {
		t.Errorf("message %q", got)
	}
	if _, err := a.store.Authenticate(ctx, "carol", "brand new pass"); err != nil {
		t.Errorf("carol cannot sign in with the new password: %v", err)
	}

	// Unknown users.
	wantStatus(t, u.hx("/users/999999/disable", nil), http.StatusNotFound)
	wantStatus(t, u.hx("/users/999999/password", url.Values{"password": {"password123"}}), http.StatusNotFound)
	wantStatus(t, u.hx("/users/x/enable", nil), http.StatusNotFound)
}

func TestMembersPage(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	ada := a.setupAdmin("ada", "password123")
	bob, err := a.store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	carol, err := a.store.CreateUser(ctx, models.NewUser{Username: "carol", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	const path = "/workspaces/default/members"
	adaID, bobID, carolID := strconv.FormatInt(ada.ID, 10), strconv.FormatInt(bob.ID, 10), strconv.FormatInt(carol.ID, 10)

	// A plain member sees the list, without the controls, and may not
	// change it.
	b := a.acctSignIn("bob", "password123")
	r := b.get(path)
	wantStatus(t, r, http.StatusOK)
	if n := r.doc.Find("#member-list > li").Length(); n != 3 {
		t.Errorf("bob sees %d members, want 3", n)
	}
	if r.doc.Find("#member-form").Length() != 0 || r.doc.Find("#member-list button").Length() != 0 {
		t.Error("a plain member sees the add form or remove buttons")
	}
	if !hasBadge(r.doc.Find("#member-"+adaID), "Owner") || !hasBadge(r.doc.Find("#member-"+bobID), "Editor") {
		t.Errorf("role badges: ada %v, bob %v", badgeTexts(r.doc.Find("#member-"+adaID)), badgeTexts(r.doc.Find("#member-"+bobID)))
	}
	wantStatus(t, b.hx(path, url.Values{"username": {"carol"}, "role": {"owner"}}), http.StatusForbidden)
	wantStatus(t, b.hx(path+"/"+carolID+"/remove", nil), http.StatusForbidden)
	if role, _, _ := a.store.MemberRole(ctx, "default", carol.ID); role != models.RoleMember {
		t.Fatalf("a plain member changed carol's membership (%q)", role)
	}
	// Other workspaces (existing or not) are not for non-members.
	wantStatus(t, b.get("/workspaces/elsewhere/members"), http.StatusForbidden)

	u := a.acctSignIn("ada", "password123")
	r = u.get("/workspaces/DEFAULT/members") // ids are case-insensitive, as in the API
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("h1").Text(); got != "Members of default" {
		t.Errorf("h1 %q", got)
	}
	wantLabels(t, r.doc, "member-username", "member-role")
	wantAllLabelled(t, r.doc)
	if r.doc.Find("#member-"+adaID+" button").Length() != 0 || !strings.Contains(r.doc.Find("#member-"+adaID).Text(), "last owner") {
		t.Error("the last owner can be removed, or the page does not say why not")
	}

	// Removing the last owner is refused with a clear error.
	r = u.hx(path+"/"+adaID+"/remove", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantFragment(t, r, "members")
	if got := r.doc.Find("#members-error").Text(); !strings.Contains(got, "ada is the last owner of default") {
		t.Errorf("last owner error %q", got)
	}

	// Wrong CSRF: refused, nothing removed.
	wantStatus(t, a.do(u.client, http.MethodPost, path+"/"+carolID+"/remove", url.Values{"csrf_token": {"x"}}, nil), http.StatusForbidden)
	if _, ok, _ := a.store.MemberRole(ctx, "default", carol.ID); !ok {
		t.Fatal("a remove with a wrong CSRF token removed carol")
	}

	// Add errors.
	for _, tc := range []struct{ username, role, field, want string }{
		{"", "member", "member-username", "The user name is required."},
		{"nobody", "member", "member-username", `"nobody" is not a user of Sked.`},
		{"Carol", "member", "member-username", "carol is already a member."},
		{"carol", "boss", "member-role", "The role must be reader, operator, editor or owner."},
	} {
		r = u.hx(path, url.Values{"username": {tc.username}, "role": {tc.role}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		wantFragment(t, r, "members")
		if got := r.doc.Find("#" + tc.field + "-error").Text(); got != tc.want {
			t.Errorf("add %q as %q: #%s-error %q, want %q", tc.username, tc.role, tc.field, got, tc.want)
		}
	}

	// Remove carol, add her back as owner (plain form post: whole page).
	r = u.hx(path+"/"+carolID+"/remove", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#member-"+carolID).Length() != 0 || r.doc.Find("#members-message").Text() != "carol removed from default." {
		t.Errorf("after removing carol: message %q", r.doc.Find("#members-message").Text())
	}
	r = u.post(path, url.Values{"username": {"carol"}, "role": {"owner"}})
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("nav").Length() != 1 || !hasBadge(r.doc.Find("#member-"+carolID), "Owner") {
		t.Errorf("carol added as owner: badges %v", badgeTexts(r.doc.Find("#member-"+carolID)))
	}
	if r.doc.Find("#remove-"+adaID).Length() != 1 {
		t.Error("with two owners, ada can still not be removed")
	}

	// Carol (an owner, not an administrator) can manage; ada removing
	// herself goes to the dashboard and loses the page.
	c := a.acctSignIn("carol", "password123")
	if r := c.get(path); r.doc.Find("#member-form").Length() != 1 {
		t.Error("an owner does not get the add form")
	}
	r = u.hx(path+"/"+adaID+"/remove", nil)
	wantStatus(t, r, http.StatusOK)
	if got := r.Header.Get("HX-Redirect"); got != "/" {
		t.Errorf("removing oneself: HX-Redirect %q, want /", got)
	}
	wantStatus(t, u.get(path), http.StatusForbidden)
}
