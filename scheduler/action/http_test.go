package action

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func spec(t *testing.T, uri, extra string) *Spec {
	t.Helper()
	raw := `{"type":"Https","request":{"uri":"` + uri + `","method":"put","headers":{"X-Custom":"yes","Content-Type":"text/plain"},"body":"payload"}` + extra + `}`
	s, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func attempt(s *Spec, timeout time.Duration) *Attempt {
	return &Attempt{JobID: 7, AttemptID: 99, ExpectedTime: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Spec: s, Timeout: timeout}
}

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
	ex := NewHTTPExecutor(nil)
	defer ex.CloseIdleConnections()
	res := NewDispatcher(ex).Execute(context.Background(), attempt(spec(t, srv.URL+"/x?q=1", ""), time.Second))
	if !res.Succeeded || res.StatusCode != 201 || res.Message != "HTTP 201 Created\ncreated" {
		t.Fatalf("result %+v", res)
	}
	h := got.Header
	if got.Method != "PUT" || got.URL.String() != "/x?q=1" || body != "payload" || h.Get("X-Custom") != "yes" {
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
	ex := NewHTTPExecutor(nil)
	defer ex.CloseIdleConnections()
	run := func(path string, timeout time.Duration) Result {
		return ex.Execute(context.Background(), attempt(spec(t, srv.URL+path, ""), timeout))
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
	if r := ex.Execute(ctx, attempt(spec(t, srv.URL+"/hang", ""), time.Second)); r.Succeeded || !strings.Contains(r.Message, "interrupted") {
		t.Errorf("cancelled: %+v", r)
	}
	if r := NewDispatcher(ex).Execute(context.Background(), &Attempt{Spec: &Spec{Type: "storagequeue"}}); r.Succeeded || !strings.Contains(r.Message, "not supported") {
		t.Errorf("storage queue: %+v", r)
	}
}

func TestParseRetryPolicy(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  RetryPolicy
	}{
		{"", DefaultRetryPolicy},
		{`,"retryPolicy":{"retryType":"None"}`, RetryPolicy{}},
		{`,"retryPolicy":{"retryType":"fixed","retryInterval":"PT1M","retryCount":2}`, RetryPolicy{Fixed: true, Interval: time.Minute, Count: 2}},
		{`,"retryPolicy":{"retryType":"Fixed","retryInterval":"1.00:00:30"}`, RetryPolicy{Fixed: true, Interval: 24*time.Hour + 30*time.Second, Count: 4}},
	} {
		s := spec(t, "http://h", c.extra)
		if s.RetryPolicy != c.want {
			t.Errorf("%s: %+v, want %+v", c.extra, s.RetryPolicy, c.want)
		}
	}
	if _, err := Parse(json.RawMessage(`{"type":"http","request":{"uri":"x","method":"GET"},"retryPolicy":{"retryType":"exp"}}`)); err == nil {
		t.Error("retryType exp accepted")
	}
	s := spec(t, "http://h", `,"errorAction":{"type":"http","request":{"uri":"http://e","method":"POST"},"retryPolicy":{"retryType":"none"}}`)
	if s.ErrorAction == nil || s.ErrorAction.Request.URI != "http://e" || s.ErrorAction.RetryPolicy.MaxAttempts() != 1 || s.RetryPolicy.MaxAttempts() != 5 {
		t.Errorf("error action %+v", s.ErrorAction)
	}
}
