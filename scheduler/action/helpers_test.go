package action

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
)

// loopback lets executors under test reach their httptest peers.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// newTestDispatcher returns a Dispatcher for cfg (loopback allowed when cfg
// has no allow list) whose idle connections are closed when the test ends.
func newTestDispatcher(t *testing.T, cfg Config) *Dispatcher {
	t.Helper()
	if cfg.AllowTargets == nil {
		cfg.AllowTargets = loopback
	}
	d, err := NewDispatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.CloseIdleConnections)
	return d
}

// httpAction returns an http(s) action: method uri with headers and body.
func httpAction(uri, method, body string, auth *jobdef.Authentication, headers ...jobdef.Header) *jobdef.Action {
	kind := jobdef.KindHTTP
	if strings.HasPrefix(uri, "https:") {
		kind = jobdef.KindHTTPS
	}
	return &jobdef.Action{Type: string(kind), Kind: kind, RetryPolicy: jobdef.DefaultRetryPolicy,
		Request: &jobdef.HTTPRequest{URI: uri, Method: method, Headers: headers, Body: body, Authentication: auth}}
}

// attempt returns attempt 99 of job 7 for the occurrence of 2026-03-01
// 12:00 UTC.
func attempt(s *jobdef.Action, timeout time.Duration) *Attempt {
	return &Attempt{JobID: 7, AttemptID: 99, ExpectedTime: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Spec: s, Timeout: timeout}
}

// assertNoSecrets fails the test when msg contains any of secrets.
func assertNoSecrets(t *testing.T, msg string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("message contains the secret %q:\n%s", s, msg)
		}
	}
}
