package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/catalog/catalogtest"
)

// seenRequest is what the run-with-changes target records of a request.
type seenRequest struct {
	replay, keep, auth, body string
}

// TestRunWithChanges: a run now with changes (SPEC §16.4) sends the
// changed header over the action's, keeps its other headers, replaces
// the body, and its retry sends the same; the next scheduled occurrence
// and a later plain run send the job as defined. The history entries of
// the changed run record the changes with the Authorization value
// masked.
func TestRunWithChanges(t *testing.T) {
	var mu sync.Mutex
	var seen []seenRequest
	failNext := true
	// The env's target reads bodies away before its handler: this one
	// keeps them.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, seenRequest{r.Header.Get("X-Replay"), r.Header.Get("X-Keep"), r.Header.Get("Authorization"), string(b)})
		if failNext {
			failNext = false
			http.Error(w, "try again", http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, nil)
	// Hourly from an hour ahead: nothing is due until then.
	start := e.clock.Now().Add(time.Hour)
	def := fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour","interval":1},
		"action":{"type":"http","request":{"uri":%q,"method":"POST","body":"as defined",
			"headers":{"X-Replay":"0","X-Keep":"k"}},
		"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1}}}`, rfc(start), srv.URL+"/hook")
	id := e.put("hook", def)
	body := `{"date":"2026-01-01"}`
	changes, err := jobdef.ParseRunChanges([]byte(`{"request":{"headers":{"x-replay":"1","Authorization":"Bearer s3cret"},"body":` +
		mustJSON(t, body) + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.RunNowWith(e.ctx, catalogtest.Actor, e.coll, e.job(id), changes); err != nil {
		t.Fatal(err)
	}
	e.drain() // fails (503): a retry is stored
	e.clock.Add(15 * time.Second)
	e.drain() // the retry succeeds
	e.clock.Add(time.Hour)
	e.drain() // the scheduled occurrence
	e.clock.Add(time.Second)
	if _, err := e.runNow(id); err != nil {
		t.Fatal(err)
	}
	e.drain()

	mu.Lock()
	got := append([]seenRequest(nil), seen...)
	mu.Unlock()
	changed := seenRequest{replay: "1", keep: "k", auth: "Bearer s3cret", body: body}
	plain := seenRequest{replay: "0", keep: "k", body: "as defined"}
	want := []seenRequest{changed, changed, plain, plain}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the target saw\n%v\nwant\n%v", got, want)
	}
	h := e.history(id)
	if len(h) != 4 {
		t.Fatalf("history: %v", historyLines(h))
	}
	for i, entry := range h {
		if i >= 2 {
			if entry.Changes != nil {
				t.Errorf("entry %d of a run as defined records changes %s", i, entry.Changes)
			}
			continue
		}
		var c struct {
			Request struct {
				Headers map[string]string `json:"headers"`
				Body    string            `json:"body"`
			} `json:"request"`
		}
		if err := json.Unmarshal(entry.Changes, &c); err != nil {
			t.Fatalf("entry %d changes %q: %v", i, entry.Changes, err)
		}
		if c.Request.Headers["x-replay"] != "1" || c.Request.Headers["Authorization"] != "Bearer [masked]" || c.Request.Body != body {
			t.Errorf("entry %d records %s", i, entry.Changes)
		}
		if strings.Contains(string(entry.Changes), "s3cret") {
			t.Errorf("entry %d keeps the secret: %s", i, entry.Changes)
		}
	}
}

// mustJSON is s as a JSON string.
func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
