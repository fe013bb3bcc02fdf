package handlers_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"sked/handlers"
	"sked/static"
)

func TestHealthAndReadiness(t *testing.T) {
	a := newApp(t, false)
	for _, path := range []string{"/healthz", "/readyz"} {
		r := a.get(path)
		wantStatus(t, r, http.StatusOK)
		var body map[string]string
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("%s: %v: %s", path, err, r.body)
		}
		if body["status"] == "" {
			t.Errorf("%s: no status in %s", path, r.body)
		}
	}
}

// TestReadinessAsksTheEngine: /readyz answers 503 with the engine's
// reason while EngineReady returns an error, 200 once it returns nil.
func TestReadinessAsksTheEngine(t *testing.T) {
	var mu sync.Mutex
	reason := errors.New("clock offset from the database is +61.2s, above --max-clock-offset 5s")
	a := newApp(t, false, func(d *handlers.Deps) {
		d.EngineReady = func() error {
			mu.Lock()
			defer mu.Unlock()
			return reason
		}
	})
	r := a.get("/readyz")
	wantStatus(t, r, http.StatusServiceUnavailable)
	var body map[string]string
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	if body["status"] != "unavailable" || body["reason"] != reason.Error() {
		t.Errorf("/readyz while the engine is not ready: %s", r.body)
	}
	mu.Lock()
	reason = nil
	mu.Unlock()
	wantStatus(t, a.get("/readyz"), http.StatusOK)
}

func TestSecurityHeaders(t *testing.T) {
	a := newApp(t, false)
	for _, path := range []string{"/setup", "/healthz", "/nope", static.URL("css/app.css")} {
		r := a.get(path)
		for header, want := range map[string]string{
			"X-Content-Type-Options": "nosniff",
			"X-Frame-Options":        "DENY",
			"Referrer-Policy":        "same-origin",
		} {
			if got := r.Header.Get(header); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, header, got, want)
			}
		}
		csp := r.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
}

func TestStaticFilesAreVersionedAndCached(t *testing.T) {
	a := newApp(t, false)
	for _, name := range []string{"css/app.css", "js/htmx.min.js", "js/app.js"} {
		r := a.get(static.URL(name))
		wantStatus(t, r, http.StatusOK)
		if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", name, cc)
		}
		if len(r.body) == 0 {
			t.Errorf("%s: empty", name)
		}
		stale := a.get("/static/" + name + "?v=old")
		wantStatus(t, stale, http.StatusOK)
		if cc := stale.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s with a stale version: Cache-Control %q, want no-cache", name, cc)
		}
	}
	if ct := a.get(static.URL("css/app.css")).Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("css served as %q", ct)
	}
	for _, path := range []string{"/static/nope.css", "/static/css", "/static/../main.go", "/static/%2e%2e/go.mod"} {
		r := a.get(path)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, r.StatusCode)
		}
	}
	// Every page links the versioned files.
	page := a.get("/setup")
	if href, _ := page.doc.Find(`link[rel="stylesheet"]`).Attr("href"); href != static.URL("css/app.css") {
		t.Errorf("stylesheet href %q, want %q", href, static.URL("css/app.css"))
	}
}

func TestBadRequestsGetNo5xx(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	tok := a.csrf("/signin")
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		ctype  string
		want   int
	}{
		{"unknown page", "GET", "/nope", "", "", http.StatusNotFound},
		{"wrong method", "DELETE", "/signin", "", "", http.StatusMethodNotAllowed},
		{"garbage form", "POST", "/signin", "%%%&&&=", "application/x-www-form-urlencoded", http.StatusForbidden},
		{"json to a form", "POST", "/signin", `{"username":"ada"}`, "application/json", http.StatusForbidden},
		{"huge body", "POST", "/signin", "csrf_token=" + tok + "&x=" + strings.Repeat("a", 2<<20), "application/x-www-form-urlencoded", http.StatusRequestEntityTooLarge},
		{"multipart without boundary", "POST", "/setup", "x", "multipart/form-data", http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, a.srv.URL+tc.path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := a.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	// API paths answer errors in the Azure shape.
	r0 := a.get("/api/v1/nope")
	wantStatus(t, r0, http.StatusNotFound)
	var apiErr struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(r0.body), &apiErr); err != nil || apiErr.Error.Code != "ResourceNotFound" || apiErr.Error.Message == "" {
		t.Errorf("API 404 body %s (%v)", r0.body, err)
	}
	// The valid-token version of a malformed sign-in is a 422, not a 5xx.
	r := a.post("/signin", url.Values{"csrf_token": {tok}, "username": {strings.Repeat("x", 10000)}, "password": {"y"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
}

// TestReadinessNamesANewerSchema: an instance running beside a newer
// release that migrated the database stays ready and says which release
// it would need to start again; one that lacks a migration it needs is
// not ready.
func TestReadinessNamesANewerSchema(t *testing.T) {
	a := newApp(t, false)
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_by) VALUES (9999, '9999_future.sql', '1a2b3c4')`); err != nil {
		t.Fatal(err)
	}
	r := a.get("/readyz")
	wantStatus(t, r, http.StatusOK)
	var body map[string]string
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatal(err)
	}
	if body["status"] != "ready" || !strings.HasPrefix(body["schema"], "database schema is at migration 9999 (applied by sked 1a2b3c4); ") ||
		!strings.Contains(body["schema"], "run sked 1a2b3c4 or newer") {
		t.Errorf("/readyz beside a newer release: %s", r.body)
	}

	if _, err := db.Exec(`DELETE FROM schema_migrations WHERE version IN (9999, (SELECT max(version) FROM schema_migrations WHERE version < 9999))`); err != nil {
		t.Fatal(err)
	}
	r = a.get("/readyz")
	wantStatus(t, r, http.StatusServiceUnavailable)
	if !strings.Contains(r.body, "lacks migrations") {
		t.Errorf("/readyz without a needed migration: %s", r.body)
	}
}
