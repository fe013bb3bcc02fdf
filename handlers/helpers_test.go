package handlers_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/handlers"
	"sked/models"
	"sked/models/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// app is a running Sked HTTP server on its own database, with a browser-like
// client (cookie jar, no redirect following).
type app struct {
	t      *testing.T
	store  *models.Store
	srv    *httptest.Server
	client *http.Client
	clock  *fakeClock
	token  string // API token sent by postJSON, if any
	dsn    string // the test database
	engine *fakeEngine
	logs   *lockedBuffer // everything the handlers logged
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newApp starts an app; opts may change its handlers.Deps first.
func newApp(t *testing.T, secure bool, opts ...func(*handlers.Deps)) *app {
	t.Helper()
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	clock := newFakeClock()
	engine := &fakeEngine{store: store, now: clock.Now}
	logs := &lockedBuffer{}
	deps := handlers.Deps{
		Store:         store,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		SecureCookies: secure,
		Version:       "test",
		Now:           clock.Now,
		Engine:        engine,
		Logger:        slog.New(slog.NewTextHandler(io.MultiWriter(t.Output(), logs), &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, o := range opts {
		o(&deps)
	}
	h := handlers.New(deps)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &app{t: t, store: store, srv: srv, client: newClient(), clock: clock, dsn: dsn, engine: engine, logs: logs}
}

func newClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

// response is a finished response with its body read.
type response struct {
	*http.Response
	body string
	doc  *goquery.Document
}

// do sends a request with form (url-encoded) or, when form is nil, the
// optional raw body.
func (a *app) do(client *http.Client, method, path string, form url.Values, header http.Header, raw ...io.Reader) *response {
	a.t.Helper()
	var body io.Reader
	var sent bytes.Buffer // the request body as sent, for checkOpenAPI
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else if len(raw) > 0 && raw[0] != nil {
		body = raw[0]
		switch raw[0].(type) {
		case *strings.Reader, *bytes.Reader:
			// Read whole: the request keeps its Content-Length.
			b, err := io.ReadAll(raw[0])
			if err != nil {
				a.t.Fatal(err)
			}
			sent.Write(b)
			body = bytes.NewReader(b)
		default:
			body = io.TeeReader(raw[0], &sent)
		}
	}
	req, err := http.NewRequest(method, a.srv.URL+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	a.checkOpenAPI(req, sent.Bytes(), resp, b)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	return &response{Response: resp, body: string(b), doc: doc}
}

// checkOpenAPI checks a request to a route the OpenAPI document describes,
// and its answer, against the document (openapi_validate_test.go), and
// fails the test for each mismatch.
func (a *app) checkOpenAPI(req *http.Request, reqBody []byte, resp *http.Response, body []byte) {
	a.t.Helper()
	s, err := loadAPISpec()
	if err != nil {
		a.t.Fatal(err)
	}
	for _, m := range s.checkExchange(req, reqBody, resp, body) {
		a.t.Error(m)
	}
}

func (a *app) get(path string) *response { return a.do(a.client, http.MethodGet, path, nil, nil) }

func (a *app) post(path string, form url.Values) *response {
	return a.do(a.client, http.MethodPost, path, form, nil)
}

// csrf fetches path and returns the CSRF token of its page.
func (a *app) csrf(path string) string {
	a.t.Helper()
	r := a.get(path)
	tok, ok := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	if !ok || tok == "" {
		a.t.Fatalf("GET %s: no csrf-token meta tag (status %d)", path, r.StatusCode)
	}
	return tok
}

func wantStatus(t *testing.T, r *response, status int) {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d\n%s", r.Request.Method, r.Request.URL.Path, r.StatusCode, status, r.body)
	}
}

func wantRedirect(t *testing.T, r *response, location string) {
	t.Helper()
	wantStatus(t, r, http.StatusSeeOther)
	if got := r.Header.Get("Location"); got != location {
		t.Fatalf("%s %s: redirect to %q, want %q", r.Request.Method, r.Request.URL.Path, got, location)
	}
}

// setupAdmin completes the first-run setup through the store.
func (a *app) setupAdmin(username, password string) *models.User {
	a.t.Helper()
	u, err := a.store.CompleteSetup(context.Background(), models.NewUser{Username: username, Password: password})
	if err != nil {
		a.t.Fatal(err)
	}
	return u
}

// signIn signs a.client in through the form.
func (a *app) signIn(username, password string) {
	a.t.Helper()
	tok := a.csrf("/signin")
	r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {username}, "password": {password}})
	wantRedirect(a.t, r, "/")
}
