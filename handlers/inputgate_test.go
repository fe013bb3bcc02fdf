package handlers_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"sked/handlers"
)

// badText are the inputs the gate refuses, percent-encoded: NUL, a byte
// that is not UTF-8, and an overlong encoding of '/'.
var badText = []struct{ name, enc, raw string }{
	{"NUL", "%00", "\x00"},
	{"0xff", "%ff", "\xff"},
	{"overlong", "%C0%AF", "\xc0\xaf"},
}

// gated is a signed-in, tokened app with a collection and a job, so that
// requests reach the gate as a user's would.
func gated(t *testing.T) *app {
	t.Helper()
	a := newApp(t, false).withToken()
	a.signIn("api", "password123")
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/job1"+apiVersion,
		`{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}}`), http.StatusCreated)
	return a
}

// fingerprintAll digests every row of every table (except the migration
// bookkeeping), to assert that refused requests changed nothing.
func (a *app) fingerprintAll() string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename`)
	if err != nil {
		a.t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			a.t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) < 10 {
		a.t.Fatalf("only %d tables: %v", len(tables), tables)
	}
	var out strings.Builder
	for _, tbl := range tables {
		var sum string
		q := fmt.Sprintf(`SELECT coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM %q t`, tbl)
		if err := db.QueryRow(q).Scan(&sum); err != nil {
			a.t.Fatal(err)
		}
		out.WriteString(tbl + ":" + sum + " ")
	}
	return out.String()
}

// routeValues fills the parameters of a route path with names that exist
// in gated's data.
var routeValues = map[string]string{":sub": "default", ":ws": "default", ":rg": "rg", ":jc": "jc", ":job": "job1", ":id": "1", "*": "js/app.js"}

// concrete returns the segments of a route path with its parameters filled.
func concrete(path string) []string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || s == "*" {
			v, ok := routeValues[s]
			if !ok {
				v = "x1" // a parameter added since: any name will do
			}
			segs[i] = v
		}
	}
	return segs
}

// sendGated sends a request with the session, the CSRF token and the API
// token, and returns its response.
func (a *app) sendGated(method, path, ctype string, body io.Reader, csrf string) *response {
	h := http.Header{"Authorization": {"Bearer " + a.token}, "X-CSRF-Token": {csrf}}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	if body == nil {
		return a.do(a.client, method, path, nil, h)
	}
	return a.do(a.client, method, path, nil, h, body)
}

// wantRefused checks that r is the gate's 400 naming name: the Azure error
// shape on API paths, a page naming it otherwise.
func wantRefused(t *testing.T, r *response, name string) {
	t.Helper()
	if r.StatusCode >= 500 {
		t.Fatalf("%s %s: status %d\n%s", r.Request.Method, r.Request.URL, r.StatusCode, r.body)
	}
	if r.StatusCode != http.StatusBadRequest {
		t.Fatalf("%s %s: status %d, want 400\n%.500s", r.Request.Method, r.Request.URL, r.StatusCode, r.body)
	}
	p := strings.ToLower(r.Request.URL.EscapedPath())
	if strings.HasPrefix(p, "/subscriptions/") || strings.HasPrefix(p, "/api/") || p == "/healthz" || p == "/readyz" {
		var e struct {
			Error struct {
				Code, Message string
				Details       []struct{ Code, Target, Message string }
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Error.Code != "BadRequest" || len(e.Error.Details) != 1 ||
			!strings.HasPrefix(e.Error.Details[0].Target, name) || !strings.Contains(e.Error.Message, name) {
			t.Fatalf("%s %s: error %s (%v), want BadRequest naming %s", r.Request.Method, r.Request.URL, r.body, err, name)
		}
		return
	}
	if !strings.Contains(r.body, name) && !strings.Contains(r.body, strings.ReplaceAll(name, `"`, "&#34;")) {
		t.Fatalf("%s %s: the page does not name %s\n%.2000s", r.Request.Method, r.Request.URL, name, r.body)
	}
}

// TestEveryRouteRefusesBadText sends NUL, a non-UTF-8 byte and an overlong
// encoding in every path segment, a query parameter, a form field
// (urlencoded and multipart) and a JSON string of every route of the real
// server: each is a 400 naming the input, and nothing changes.
func TestEveryRouteRefusesBadText(t *testing.T) {
	a := gated(t)
	e := a.srv.Config.Handler.(*echo.Echo)
	routes := e.Routes()
	sort.Slice(routes, func(i, j int) bool { return routes[i].Method+routes[i].Path < routes[j].Method+routes[j].Path })
	csrf := a.csrf("/")
	before := a.fingerprintAll()
	n := 0
	for _, rt := range routes {
		if rt.Method == echo.RouteNotFound || strings.HasPrefix(rt.Path, "echo_route_") {
			continue
		}
		n++
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			segs := concrete(rt.Path)
			query := "?api-version=2016-03-01"
			for _, bad := range badText {
				for i := range segs {
					s := append([]string(nil), segs...)
					s[i] = "x" + bad.enc
					r := a.sendGated(rt.Method, "/"+strings.Join(s, "/")+query, "", nil, csrf)
					wantRefused(t, r, fmt.Sprintf("path segment %d", i+1))
				}
				good := "/" + strings.Join(segs, "/")
				wantRefused(t, a.sendGated(rt.Method, good+query+"&after=a"+bad.enc, "", nil, csrf), `query parameter "after"`)
				wantRefused(t, a.sendGated(rt.Method, good+query+"&a"+bad.enc+"=1", "", nil, csrf), `query parameter name`)
				switch rt.Method {
				case http.MethodPost, http.MethodPut, http.MethodPatch:
				default:
					continue
				}
				form := "csrf_token=" + url.QueryEscape(csrf) + "&username=a" + bad.enc + "b"
				wantRefused(t, a.sendGated(rt.Method, good+query, echo.MIMEApplicationForm, strings.NewReader(form), csrf), `form field "username"`)

				var mp bytes.Buffer
				w := multipart.NewWriter(&mp)
				_ = w.WriteField("csrf_token", csrf)
				_ = w.WriteField("text", "a"+bad.raw)
				_ = w.Close()
				wantRefused(t, a.sendGated(rt.Method, good+query, w.FormDataContentType(), &mp, csrf), `form field "text"`)

				for _, body := range []string{`{"properties":{"location":"a` + bad.raw + `"}}`, `{"properties":{"location":"\u0000"}}`} {
					wantRefused(t, a.sendGated(rt.Method, good+query, echo.MIMEApplicationJSON, strings.NewReader(body), csrf), "body")
				}
			}
		})
		if got := a.fingerprintAll(); got != before {
			t.Fatalf("after %s %s the database changed", rt.Method, rt.Path)
		}
	}
	if n < 40 {
		t.Errorf("only %d routes", n)
	}
	if strings.Contains(a.logs.String(), "level=ERROR") {
		t.Errorf("errors were logged:\n%s", a.logs)
	}
}

// TestBadTextWhereverItComes sends a NUL byte, bytes that are not UTF-8
// and an overlong encoding in a form field (signed in and out), a path
// segment, a query parameter, the import API's streamed body, a calendar
// body and a file of the import page: each is refused naming where it was
// (never a 500), and nothing is written.
func TestBadTextWhereverItComes(t *testing.T) {
	a := gated(t)
	tok := a.csrf("/") // the dashboard fills its hour cache once
	before := a.fingerprintAll()
	fresh := newClient() // signed out: the gate runs before the session too
	r := a.do(a.client, http.MethodPost, "/signin", nil, http.Header{"Content-Type": {echo.MIMEApplicationForm}},
		strings.NewReader("csrf_token="+tok+"&username=%00bar&password=x"))
	wantRefused(t, r, `form field "username"`)
	r = a.do(fresh, http.MethodPost, "/signin", nil, http.Header{"Content-Type": {echo.MIMEApplicationForm}},
		strings.NewReader("username=%00bar&password=x"))
	wantRefused(t, r, `form field "username"`)

	r = a.api(http.MethodGet, "/subscriptions/%00/providers/Microsoft.Scheduler/jobCollections"+apiVersion, "")
	wantRefused(t, r, "path segment 2")
	if !strings.Contains(r.body, `path segment 2: contains a NUL byte`) {
		t.Errorf("message: %s", r.body)
	}
	r = a.api(http.MethodGet, rgPath("rg")+"/jc/jobs/job1/history"+apiVersion+"&after=%ff", "")
	wantRefused(t, r, `query parameter "after"`)
	if !strings.Contains(r.body, `query parameter \"after\": is not valid UTF-8`) {
		t.Errorf("message: %s", r.body)
	}
	wantRefused(t, a.get("/c/default/rg/jc/jobs/job1/history?after=%ff"), `query parameter "after"`)
	wantRefused(t, a.get("/c/%00/rg/jc"), "path segment 2")
	wantRefused(t, a.api(http.MethodGet, "/api/v1/export?subscription=%00", ""), `query parameter "subscription"`)
	wantRefused(t, a.api(http.MethodPost, "/api/v1/import?resourceGroup=%c0%af&jobCollection=jc", `[]`), `query parameter "resourceGroup"`)

	// The import API's body is checked as it streams.
	for _, body := range []string{
		`[{"name":"a","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET","body":"\u0000"}}}]`,
		"[{\"name\":\"a\",\"action\":{\"type\":\"http\",\"request\":{\"uri\":\"https://example.com/\",\"method\":\"GET\",\"body\":\"\xff\"}}}]",
		`{"value":[],"collections":[{"name":"c","location":"\ud800"}]}`,
	} {
		r := a.api(http.MethodPost, "/api/v1/import?dryRun=false&resourceGroup=rg&jobCollection=jc", body)
		wantRefused(t, r, "body")
	}
	// Another text on an API path (an .ics file): NUL and UTF-8 only.
	for _, body := range []string{"BEGIN:VCALENDAR\x00", "BEGIN:VCALENDAR\xff"} {
		r := a.do(a.client, http.MethodPost, "/api/v1/preview", nil,
			http.Header{"Content-Type": {"text/calendar"}, "Authorization": {"Bearer " + a.token}}, strings.NewReader(body))
		wantRefused(t, r, "body")
	}
	// A file uploaded on the import page is checked by the handler.
	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	_ = w.WriteField("csrf_token", a.csrf("/import"))
	_ = w.WriteField("step", "all")
	fw, _ := w.CreateFormFile("file", "jobs.json")
	_, _ = fw.Write([]byte(`[{"name":"a","action":{"type":"http","request":{"uri":"https://example.com/\u0000","method":"GET"}}}]`))
	_ = w.Close()
	r = a.do(a.client, http.MethodPost, "/import", nil, http.Header{"Content-Type": {w.FormDataContentType()}}, &mp)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.body, `file: contains a NUL character`) {
		t.Errorf("import page: %.3000s", r.body)
	}
	if got := a.fingerprintAll(); got != before {
		t.Fatalf("the database changed\nbefore %s\nafter  %s", before, got)
	}
	if strings.Contains(a.logs.String(), "level=ERROR") {
		t.Errorf("errors were logged:\n%s", a.logs)
	}
}

// TestGateKeepsBodies checks that requests the gate lets through reach
// their handlers whole: a form, a multipart form and a JSON body.
func TestGateKeepsBodies(t *testing.T) {
	a := gated(t)
	r := a.api(http.MethodPut, rgPath("rg")+"/jc/jobs/job2"+apiVersion, `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/%C3%A9","method":"POST","body":"caf\u00e9 😀"}}}}`)
	wantStatus(t, r, http.StatusCreated)
	if !strings.Contains(r.body, "café 😀") {
		t.Errorf("body %s", r.body)
	}
	csrf := a.csrf("/tokens")
	r = a.post("/tokens", url.Values{"csrf_token": {csrf}, "name": {"ci – déploiement"}})
	if r.StatusCode >= 400 {
		t.Fatalf("POST /tokens: %d %.500s", r.StatusCode, r.body)
	}
	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	_ = w.WriteField("csrf_token", a.csrf("/import"))
	_ = w.WriteField("resource_group", "ops")
	_ = w.WriteField("collection", "reports")
	_ = w.WriteField("step", "check")
	fw, _ := w.CreateFormFile("file", "jobs.json")
	_, _ = fw.Write([]byte(seedJobs))
	_ = w.Close()
	r = a.do(a.client, http.MethodPost, "/import", nil, http.Header{"Content-Type": {w.FormDataContentType()}}, &mp)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, "weekday-report") {
		t.Errorf("import page did not read the file: %.2000s", r.body)
	}
}

// TestSignInRedirectsOnlyToLocalPaths signs in with hostile next values:
// every answer goes to "/", as a 303 and as an htmx redirect.
func TestSignInRedirectsOnlyToLocalPaths(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "password123")
	for _, next := range []string{"/\t/evil.example/", "//evil.example", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example",
		"javascript:alert(1)", "/\uff0f/evil.example", "/.//evil.example", "/\r\nLocation: //evil.example"} {
		for _, htmx := range []bool{false, true} {
			c := newClient()
			tok := csrfOf(t, a, c)
			h := http.Header{"Content-Type": {echo.MIMEApplicationForm}}
			if htmx {
				h.Set("HX-Request", "true")
			}
			form := url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}, "next": {next}}
			r := a.do(c, http.MethodPost, "/signin", nil, h, strings.NewReader(form.Encode()))
			if htmx {
				wantStatus(t, r, http.StatusOK)
				if got := r.Header.Get("HX-Redirect"); got != "/" {
					t.Errorf("next %q: HX-Redirect %q, want /", next, got)
				}
			} else {
				wantRedirect(t, r, "/")
			}
		}
	}
	// A local next is kept, from the form and from the query.
	c := newClient()
	tok := csrfOf(t, a, c)
	form := url.Values{"csrf_token": {tok}, "username": {"ada"}, "password": {"password123"}, "next": {"/tokens?x=1"}}
	wantRedirect(t, a.do(c, http.MethodPost, "/signin", nil, http.Header{"Content-Type": {echo.MIMEApplicationForm}}, strings.NewReader(form.Encode())), "/tokens?x=1")
	wantRedirect(t, a.do(c, http.MethodGet, "/signin?next=%2F%09%2Fevil.example%2F", nil, nil), "/")
}

// csrfOf fetches the sign-in page with client c and returns its CSRF token.
func csrfOf(t *testing.T, a *app, c *http.Client) string {
	t.Helper()
	r := a.do(c, http.MethodGet, "/signin", nil, nil)
	tok, ok := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	if !ok || tok == "" {
		t.Fatalf("no csrf-token on /signin (status %d)", r.StatusCode)
	}
	return tok
}

// TestValidationNamesTheField sends jobs that fail the job definition's
// checks through the API: a 400 naming the field, and nothing written.
func TestValidationNamesTheField(t *testing.T) {
	a := gated(t)
	before := a.fingerprintAll()
	for _, tc := range []struct{ action, want string }{
		{`{"type":"http","request":{"uri":"https://example.com/a b","method":"GET"}}`, "action.request.uri"},
		{`{"type":"http","request":{"uri":"/hook","method":"GET"}}`, "action.request.uri"},
		{`{"type":"http","request":{"uri":"ftp://example.com/f","method":"GET"}}`, "action.request.uri"},
		{`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{}}`, "action.retryPolicy.retryType"},
		{`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"errorAction":{"type":"http","request":{"uri":"https://example.com/x y","method":"GET"}}}`, "action.errorAction.request.uri"},
	} {
		r := a.api(http.MethodPut, rgPath("rg")+"/jc/jobs/new"+apiVersion, `{"properties":{"action":`+tc.action+`}}`)
		wantRefused(t, r, tc.want)
	}
	if a.fingerprintAll() != before {
		t.Fatal("the database changed")
	}
}

// TestHSTSOnlyBehindHTTPS checks Strict-Transport-Security: sent when the
// base URL is https, not otherwise; the other headers always.
func TestHSTSOnlyBehindHTTPS(t *testing.T) {
	a := newApp(t, false)
	for _, base := range []string{"", "http://sked.example", "https://sked.example", "HTTPS://sked.example/x"} {
		h := handlers.New(handlers.Deps{Store: a.store, SessionSecret: []byte("0123456789abcdef0123456789abcdef"), BaseURL: base})
		for _, path := range []string{"/signin", "/healthz", "/nope", "/subscriptions/%00"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			hsts := w.Header().Get("Strict-Transport-Security")
			if want := strings.HasPrefix(strings.ToLower(base), "https:"); (hsts == "max-age=63072000; includeSubDomains") != want {
				t.Errorf("base %q %s: HSTS %q", base, path, hsts)
			}
			for _, name := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
				if w.Header().Get(name) == "" {
					t.Errorf("base %q %s: no %s", base, path, name)
				}
			}
		}
	}
}
