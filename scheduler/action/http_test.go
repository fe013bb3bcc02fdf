package action

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sked/models/jobdef"
)

func TestHTTPActionSendsRequestAndSkedHeaders(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "created")
	}))
	defer srv.Close()
	d := newTestDispatcher(t, Config{})
	a := httpAction(srv.URL+"/x?q=1", "PUT", "payload", nil,
		jobdef.Header{Name: "X-Custom", Value: "yes"}, jobdef.Header{Name: "Content-Type", Value: "text/plain"})
	res := d.Execute(context.Background(), attempt(a, time.Second))
	if !res.Succeeded || res.StatusCode != 201 || res.Message != "HTTP 201 Created\ncreated" {
		t.Fatalf("result %+v", res)
	}
	h := got.Header
	if got.Method != "PUT" || got.URL.String() != "/x?q=1" || body != "payload" || h.Get("X-Custom") != "yes" || h.Get("User-Agent") != "Sked-Scheduler" {
		t.Errorf("request %s %s %q %v", got.Method, got.URL, body, h)
	}
	want := map[string]string{
		"x-ms-scheduler-jobid":                   "7",
		"x-ms-scheduler-expected-execution-time": "2026-03-01T12:00:00Z",
		"x-ms-scheduler-execution-tag":           "99",
		"Idempotency-Key":                        "7:2026-03-01T12:00:00Z",
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
}

func TestHTTPActionTargetFaults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	big := strings.Repeat("x", 10<<20)
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		case "/500":
			http.Error(w, "internal trouble", http.StatusInternalServerError)
		case "/reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(interface{ SetLinger(int) error }).SetLinger(0)
			conn.Close()
		case "/big":
			io.WriteString(w, big)
		case "/redirect":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}
	}))
	defer srv.Close()
	defer close(hang)
	d, err := NewDispatcher(Config{AllowTargets: loopback})
	if err != nil {
		t.Fatal(err)
	}
	defer d.CloseIdleConnections()
	ex := d.HTTP
	run := func(path string, timeout time.Duration) Result {
		return ex.Execute(context.Background(), attempt(httpAction(srv.URL+path, "GET", "", nil), timeout))
	}
	if r := run("/hang", 200*time.Millisecond); r.Succeeded || r.Message != "timed out after 200ms" {
		t.Errorf("hang: %+v", r)
	}
	if r := run("/500", time.Second); r.Succeeded || r.StatusCode != 500 || !strings.Contains(r.Message, "internal trouble") {
		t.Errorf("500: %+v", r)
	}
	if r := run("/reset", time.Second); r.Succeeded || r.StatusCode != 0 || !strings.HasPrefix(r.Message, "request failed: ") {
		t.Errorf("reset: %+v", r)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := run("/big", 5*time.Second)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if !r.Succeeded || len(r.Message) != len("HTTP 200 OK\n")+MaxBodyKept {
		t.Errorf("10 MB body: succeeded %v, message of %d bytes", r.Succeeded, len(r.Message))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
		t.Errorf("reading a 10 MB body allocated %d bytes", grew)
	}
	if r := run("/redirect", time.Second); r.Succeeded || r.StatusCode != 302 {
		t.Errorf("redirect followed or misread: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := ex.Execute(ctx, attempt(httpAction(srv.URL+"/hang", "GET", "", nil), time.Second)); r.Succeeded || !strings.Contains(r.Message, "interrupted") {
		t.Errorf("cancelled: %+v", r)
	}
	if r := d.Execute(context.Background(), &Attempt{Spec: &jobdef.Action{Type: "ftp", Kind: "ftp"}}); r.Succeeded || !strings.Contains(r.Message, `action type "ftp" is not supported`) {
		t.Errorf("unknown type: %+v", r)
	}
}

func TestNewDispatcherRejectsBadEndpoints(t *testing.T) {
	for _, cfg := range []Config{
		{OAuthAuthority: "login.example.com"},
		{StorageEndpoint: "ftp://{account}.example.com"},
		{ServiceBusEndpoint: "https://{namespace}.example.com?x=1"},
	} {
		if _, err := NewDispatcher(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	d, err := NewDispatcher(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.HTTP.tokens.authority != DefaultOAuthAuthority || d.StorageQueue.endpoint != DefaultStorageEndpoint || d.ServiceBus.endpoint != DefaultServiceBusEndpoint {
		t.Errorf("defaults not applied: %q %q %q", d.HTTP.tokens.authority, d.StorageQueue.endpoint, d.ServiceBus.endpoint)
	}
}
