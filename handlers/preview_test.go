package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

const lastFridayBerlin = `{"startTime": "2026-01-01T00:00:00", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "month", "timeZone": "Europe/Berlin",
  "schedule": {"monthlyOccurrences": [{"day": "friday", "occurrence": -1}], "hours": [5], "minutes": [15]}}`

// postJSON posts body to path with a.token (when set) as bearer token.
func (a *app) postJSON(path, body string) *response {
	a.t.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	if a.token != "" {
		h.Set("Authorization", "Bearer "+a.token)
	}
	return a.do(a.client, http.MethodPost, path, nil, h, strings.NewReader(body))
}

// withToken gives a a user and an API token for the API.
func (a *app) withToken() *app {
	a.t.Helper()
	u := a.setupAdmin("api", "password123")
	_, tok, err := a.store.CreateToken(context.Background(), u.ID, "test")
	if err != nil {
		a.t.Fatal(err)
	}
	a.token = tok
	return a
}

func TestAPIRequiresAValidToken(t *testing.T) {
	a := newApp(t, false).withToken()
	good := a.token
	body := lastFridayBerlin + "}"
	for _, tc := range []struct{ name, header string }{
		{"no header", ""},
		{"not bearer", "Basic YWRtaW46cGFzc3dvcmQ="},
		{"empty bearer", "Bearer "},
		{"unknown token", "Bearer sked_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"mangled token", "Bearer " + good + "x"},
	} {
		h := http.Header{"Content-Type": {"application/json"}}
		if tc.header != "" {
			h.Set("Authorization", tc.header)
		}
		r := a.do(a.client, http.MethodPost, "/api/v1/preview", nil, h, strings.NewReader(body))
		if r.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") ||
			!strings.Contains(r.body, `"code":"AuthenticationFailed"`) {
			t.Errorf("%s: status %d, WWW-Authenticate %q, body %s", tc.name, r.StatusCode, r.Header.Get("WWW-Authenticate"), r.body)
		}
	}
	wantStatus(t, a.postJSON("/api/v1/preview", body), http.StatusOK)
	// A revoked token stops working at once.
	u, err := a.store.UserByName(context.Background(), "api")
	if err != nil {
		t.Fatal(err)
	}
	toks, err := a.store.TokensOf(context.Background(), u.ID)
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens %v, %v", toks, err)
	}
	if err := a.store.RevokeToken(context.Background(), toks[0].UserID, toks[0].ID); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.postJSON("/api/v1/preview", body), http.StatusUnauthorized)
}

func TestPreviewAPI(t *testing.T) {
	a := newApp(t, false).withToken()
	r := a.postJSON("/api/v1/preview", lastFridayBerlin+`, "n": 3, "now": "2026-11-21T00:00:00Z"}`)
	wantStatus(t, r, http.StatusOK)
	var got recurrence.Result
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	// Written by hand: the last Fridays of Nov 2026, Dec 2026, Jan 2027 at
	// 05:15 in Berlin (CET, +01:00).
	want := []string{"2026-11-27T05:15:00+01:00", "2026-12-25T05:15:00+01:00", "2027-01-29T05:15:00+01:00"}
	var raw struct {
		Occurrences []string `json:"occurrences"`
		Description string   `json:"description"`
		Warnings    []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.body), &raw); err != nil {
		t.Fatal(err)
	}
	if strings.Join(raw.Occurrences, " ") != strings.Join(want, " ") {
		t.Errorf("occurrences %v, want %v", raw.Occurrences, want)
	}
	if raw.Warnings == nil {
		t.Errorf("warnings must be an array, got %s", r.body)
	}
	// The same answer as the library (the CLI's code path) for the same job.
	job, err := jobdef.Parse([]byte(lastFridayBerlin + "}"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := recurrence.Preview(job, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), 3)
	if err != nil {
		t.Fatal(err)
	}
	libJSON, _ := json.Marshal(lib)
	gotJSON, _ := json.Marshal(got)
	if string(libJSON) != string(gotJSON) {
		t.Errorf("API answer %s differs from the library's %s", gotJSON, libJSON)
	}
}

func TestPreviewAPIBadInput(t *testing.T) {
	a := newApp(t, false).withToken()
	cases := []struct {
		name, body string
		status     int
		targets    []string
	}{
		{"not JSON", `{"recurrence":`, http.StatusBadRequest, nil},
		{"every problem at once", `{"action": {"type": "http"}, "recurrence": {"frequency": "weak", "interval": 0}, "n": 5000}`,
			http.StatusBadRequest, []string{"recurrence.frequency", "recurrence.interval", "n"}},
		{"no action", `{"recurrence": {"frequency": "day"}}`, http.StatusBadRequest, []string{"action"}},
		{"bad now", lastFridayBerlin + `, "now": "yesterday"}`, http.StatusBadRequest, []string{"now"}},
		{"too large", `{"x": "` + strings.Repeat("a", 70000) + `"}`, http.StatusRequestEntityTooLarge, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.postJSON("/api/v1/preview", tc.body)
			wantStatus(t, r, tc.status)
			var e struct {
				Error struct {
					Code, Message string
					Details       []struct{ Target, Message string }
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Error.Message == "" {
				t.Fatalf("error body %s (%v)", r.body, err)
			}
			for _, target := range tc.targets {
				found := false
				for _, d := range e.Error.Details {
					found = found || (d.Target == target && strings.HasPrefix(d.Message, target+": "))
				}
				if !found {
					t.Errorf("no detail for %s in %s", target, r.body)
				}
			}
		})
	}
	wantStatus(t, a.get("/api/v1/preview"), http.StatusMethodNotAllowed)
}

// TestPreviewWarnsAboutForbiddenTargets checks the warning for a literal
// loopback or metadata address, and its absence when allowed.
func TestPreviewWarnsAboutForbiddenTargets(t *testing.T) {
	a := newApp(t, false).withToken()
	for _, tc := range []struct{ uri, want string }{
		{"http://169.254.169.254/latest/meta-data", "action.request.uri: 169.254.169.254 is a link-local address"},
		{"http://127.0.0.1:8080/", "action.request.uri: 127.0.0.1 is a loopback address"},
		{"http://localhost/", "action.request.uri: localhost is a loopback address"},
		{"https://example.com/", ""},
	} {
		r := a.postJSON("/api/v1/preview", `{"action":{"type":"http","request":{"uri":"`+tc.uri+`","method":"GET"}}}`)
		wantStatus(t, r, http.StatusOK)
		if tc.want == "" && strings.Contains(r.body, "address") || tc.want != "" && !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %s", tc.uri, r.body)
		}
	}
}
