package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
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

// TestAccountPagesShowRelativeTimes checks that the tokens and sessions
// pages write each time with how far it is beside it.
func TestAccountPagesShowRelativeTimes(t *testing.T) {
	f := newPGFixture(t)
	f.clock.Advance(3 * time.Hour)
	for _, path := range []string{"/tokens", "/account", "/users"} {
		if path == "/tokens" {
			f.formPost("/tokens", url.Values{"name": {"ci"}})
		}
		r := f.get(path)
		wantStatus(t, r, http.StatusOK)
		tm := r.doc.Find("main time[datetime]").First()
		if tm.Length() == 0 {
			t.Errorf("%s: no time", path)
			continue
		}
		rel := strings.TrimSpace(tm.Next().Text())
		if !strings.HasPrefix(rel, "(") || !strings.HasSuffix(rel, ")") || !strings.Contains(tm.AttrOr("title", ""), strings.TrimSpace(tm.Text())+" "+rel) {
			t.Errorf("%s: time %q, relative %q, title %q", path, tm.Text(), rel, tm.AttrOr("title", ""))
		}
	}
}
