package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"sked/handlers"
	"sked/models"
	"sked/models/testdb"
)

// FuzzRouter sends arbitrary requests (method, path, query, body) to the
// real router on a real database, as a signed-in user with an API token and
// the session's CSRF token, so that requests get past authentication: none
// may answer 5xx. A body starting with '{' or '[' is sent as JSON, any
// other as a form.
func FuzzRouter(f *testing.F) {
	dsn := testdb.DSN(f)
	store, err := models.Open(context.Background(), dsn, models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 5,
		SecretKeys: [][]byte{testdb.SecretKey}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	now := newFakeClock().Now
	user, err := store.CompleteSetup(context.Background(), models.NewUser{Username: "fuzz", Password: "password123"})
	if err != nil {
		f.Fatal(err)
	}
	_, token, err := store.CreateToken(context.Background(), user.ID, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	h := handlers.New(handlers.Deps{
		Store:         store,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Version:       "fuzz",
		Now:           now,
		Engine:        &fakeEngine{store: store, now: now},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	srv := httptest.NewServer(h)
	f.Cleanup(srv.Close)
	client := newClient()
	cookies, csrf := fuzzSignIn(f, client, srv.URL)
	header := func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("X-CSRF-Token", csrf)
		r.Header.Set("Cookie", cookies)
	}
	for _, put := range []struct{ path, body string }{
		{"/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc", `{"properties":{"sku":{"name":"Standard"}}}`},
		{"/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/job1",
			`{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}}`},
	} {
		req := httptest.NewRequest(http.MethodPut, put.path+"?api-version=2016-03-01", strings.NewReader(put.body))
		header(req)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusCreated {
			f.Fatalf("PUT %s: %d %s", put.path, w.Code, w.Body)
		}
	}

	for _, s := range [][4]string{
		{"POST", "/signin", "", "username=%00bar&password=x"},
		{"GET", "/subscriptions/%00/providers/Microsoft.Scheduler/jobCollections", "api-version=2016-03-01", ""},
		{"GET", "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/job1/history", "api-version=2016-03-01&after=%ff", ""},
		{"GET", "/c/default/rg/jc/jobs/job1/history", "after=%ff&status=Failed", ""},
		{"GET", "/c/%00/rg/jc", "", ""},
		{"GET", "/c/default/rg/jc/jobs/job1/timeline", "range=%C0%AF", ""},
		{"POST", "/signin", "", "username=fuzz&password=password123&next=%2F%09%2Fevil.example%2F"},
		{"PUT", "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/j2", "api-version=2016-03-01",
			`{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/a b","method":"GET"},"retryPolicy":{}}}}`},
		{"PUT", "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc2", "api-version=2016-03-01", `{"location":"\u0000"}`},
		{"PATCH", "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc", "api-version=2016-03-01", `{"tags":{"a":"\ud800"}}`},
		{"POST", "/api/v1/import", "dryRun=false&resourceGroup=rg&jobCollection=jc", `[{"name":"x","action":{"type":"http","request":{"uri":"https://example.com/\u0000","method":"GET"}}}]`},
		{"GET", "/api/v1/export", "subscription=default&resourceGroup=%00", ""},
		{"POST", "/api/v1/preview", "", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"n":3,"now":"\u0000"}`},
		{"POST", "/collections/new", "", "workspace=default&resource_group=rg&name=%FF"},
		{"POST", "/tokens", "", "name=%00"},
		{"POST", "/workspaces/default/members", "", "username=%C0%AF"},
		{"POST", "/users", "", "username=a%00&password=password123&confirm=password123"},
		{"POST", "/c/default/rg/jc/jobs/job1/edit", "", "json=%7B%22action%22%3A%7B%7D%7D&name=job1"},
		{"GET", "/static/%2e%2e/go.mod", "", ""},
		{"DELETE", "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/%E2%80%AE", "api-version=2016-03-01", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		method = fuzzMethod(method)
		target := "/" + strings.TrimPrefix(path, "/")
		if query != "" {
			target += "?" + query
		}
		ctype := "application/x-www-form-urlencoded"
		if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") {
			ctype = "application/json"
		}
		// Only what an HTTP server would parse reaches the router.
		raw := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: sked.test\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
			method, target, ctype, len(body), body)
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		req.RemoteAddr = "192.0.2.1:1234"
		req.RequestURI = ""
		header(req)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s (body %q): status %d\n%s", method, target, body, w.Code, w.Body)
		}
	})
}

// fuzzMethods are the methods the fuzzer sends: Sked's and a few others.
var fuzzMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"}

// fuzzMethod maps any string to one of fuzzMethods, so that the fuzzer
// spends its time on requests a server would parse.
func fuzzMethod(s string) string {
	for _, m := range fuzzMethods {
		if strings.EqualFold(s, m) {
			return m
		}
	}
	n := 0
	for _, b := range []byte(s) {
		n += int(b)
	}
	return fuzzMethods[n%len(fuzzMethods)]
}

// fuzzSignIn signs in through the form and returns the session cookie (as
// a Cookie header) and the session's CSRF token.
func fuzzSignIn(f *testing.F, client *http.Client, base string) (string, string) {
	f.Helper()
	token := func(path string) string {
		resp, err := client.Get(base + path)
		if err != nil {
			f.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		_, after, ok := strings.Cut(string(b), `<meta name="csrf-token" content="`)
		tok, _, ok2 := strings.Cut(after, `"`)
		if !ok || !ok2 || tok == "" {
			f.Fatalf("GET %s: no CSRF token (status %d)", path, resp.StatusCode)
		}
		return tok
	}
	form := url.Values{"csrf_token": {token("/signin")}, "username": {"fuzz"}, "password": {"password123"}}
	resp, err := client.PostForm(base+"/signin", form)
	if err != nil {
		f.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		f.Fatalf("sign in: status %d", resp.StatusCode)
	}
	u, _ := url.Parse(base)
	var parts []string
	for _, c := range client.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; "), token("/")
}
