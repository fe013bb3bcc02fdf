package engine

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

func TestFailureRetriesThenErrorActionWithExactCountersAndHistory(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/main" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	def := fmt.Sprintf(`{"action":{"type":"http","request":{"uri":%q,"method":"GET"},
		"retryPolicy":{"retryType":"fixed","retryInterval":"PT20S","retryCount":2},
		"errorAction":{"type":"Http","request":{"uri":%q,"method":"POST","body":"failed"},
			"retryPolicy":{"retryType":"none"}}}}`, e.target.URL+"/main", e.target.URL+"/error")
	id := e.put("fails", def)
	e.drain()
	// Retries are stored, due 20 s later; the failed attempt's row is
	// gone, its history entry written.
	att := e.attempts(id)
	if len(att) != 1 || att[0].Status != "pending" || att[0].Attempt != 2 || !att[0].DueAt.Equal(e.clock.Now().Add(20*time.Second)) {
		t.Fatalf("open attempts after the first failure: %+v", att)
	}
	wantLines(t, historyLines(e.history(id)), "MainAction Failed retry=0 repeat=1")
	e.clock.Add(19 * time.Second)
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Fatalf("retried %d early", n-1)
	}
	e.clock.Add(time.Second)
	e.drain()
	e.clock.Add(20 * time.Second)
	e.drain() // third main attempt fails, the error action runs at once
	paths := []string{}
	for _, r := range e.target.requests() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/main /main /main /error" {
		t.Errorf("requests %v", paths)
	}
	keys := map[string]bool{}
	for _, r := range e.target.requests() {
		keys[r.Key] = true
	}
	if len(keys) != 1 {
		t.Errorf("Idempotency-Keys %v: want one for the whole occurrence", keys)
	}
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1", "MainAction Failed retry=2 repeat=1",
		"ErrorAction Completed retry=0 repeat=1")
	e.counters(id, 4, 3, 1)
	if h := e.history(id); !strings.Contains(h[0].Message, "500") || !strings.Contains(h[0].Message, "boom") {
		t.Errorf("failure message %q", h[0].Message)
	}
	// The one-time job's only occurrence faulted: the job is faulted.
	if j := e.job(id); j.State != jobdef.Faulted || j.EndedAt == nil {
		t.Errorf("state %s, want faulted", j.State)
	}
}

func TestErrorActionRetriesAndRecurringJobKeepsRunning(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	start := e.clock.Now().Add(time.Minute)
	def := fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour"},"action":{"type":"http","request":{"uri":%q,"method":"GET"},
		"retryPolicy":{"retryType":"none"},
		"errorAction":{"type":"http","request":{"uri":%q,"method":"GET"},"retryPolicy":{"retryType":"fixed","retryInterval":"00:00:30","retryCount":1}}}}`,
		rfc(start), e.target.URL+"/main", e.target.URL+"/error")
	id := e.put("hourly", def)
	e.clock.Set(start)
	e.drain()
	e.clock.Add(30 * time.Second)
	e.drain()
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "ErrorAction Failed retry=0 repeat=1", "ErrorAction Failed retry=1 repeat=1")
	e.counters(id, 3, 3, 1)
	if j := e.job(id); j.State != jobdef.Enabled || !j.NextRunAt.Equal(start.Add(time.Hour)) {
		t.Errorf("state %s next %v: a recurring job keeps running after a faulted occurrence", j.State, j.NextRunAt)
	}
}

func TestRecurringJobWithCountFaultsWhenLastOccurrenceFaults(t *testing.T) {
	fail := true
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	start := e.clock.Now().Add(time.Minute)
	id := e.put("twice", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute","count":2},"action":%s}`,
		rfc(start), e.action("/t", `"retryPolicy":{"retryType":"none"}`)))
	e.clock.Set(start)
	fail = false
	e.drain()
	e.clock.Add(time.Minute)
	fail = true
	e.drain()
	if j := e.job(id); j.State != jobdef.Faulted {
		t.Errorf("state %s, want faulted", j.State)
	}
	e.counters(id, 2, 1, 1)
}

// TestExpiredLeaseIsRecordedInterruptedAndRetried: another engine claims
// an occurrence and dies without a word. Its lease ends by the database's
// clock: however far the engine's clock moves, the attempt stays running;
// once the lease ends by the database's clock, a claim records it Failed
// ("interrupted") and its retry runs at its time.
func TestExpiredLeaseIsRecordedInterruptedAndRetried(t *testing.T) {
	e := newEnv(t, nil)
	id := e.put("lost", `{"action":`+e.action("/l", `"timeout":"PT10S","retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":3}`)+`}`)
	ghost := e.engine.claimRequest(e.clock.Now(), 10)
	ghost.Owner = "ghost"
	if _, err := e.store.Claim(e.ctx, ghost); err != nil {
		t.Fatal(err)
	}
	// Schedule first, then claim: the ghost's claim only scheduled.
	if _, err := e.store.Claim(e.ctx, ghost); err != nil {
		t.Fatal(err)
	}
	att := e.attempts(id)
	if len(att) != 1 || att[0].Status != "running" || *att[0].LeaseOwner != "ghost" {
		t.Fatalf("attempts %+v", att)
	}
	// Lease: timeout 10 s + margin 30 s, by the database's clock. An hour
	// on the engine's clock (a clock far ahead) does not end it.
	e.clock.Add(time.Hour)
	e.drain()
	if e.attempts(id)[0].Status != "running" {
		t.Fatal("interrupted before the lease expired by the database's clock")
	}
	// The lease ends by the database's clock.
	db, err := sql.Open("pgx", e.store.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The occurrence's attempt is a record (its running history row).
	if _, err := db.Exec(`UPDATE job_history SET lease_expires_at = clock_timestamp() - interval '1 millisecond'
		WHERE job_id = $1 AND status = 'Running'`, id); err != nil {
		t.Fatal(err)
	}
	e.drain()
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Failed retry=0 repeat=1")
	if !strings.Contains(h[0].Message, "interrupted") {
		t.Errorf("message %q", h[0].Message)
	}
	e.clock.Add(15 * time.Second)
	e.drain()
	wantLines(t, historyLines(e.history(id)), "MainAction Failed retry=0 repeat=1", "MainAction Completed retry=1 repeat=1")
	e.counters(id, 2, 1, 0)
	if n := len(e.target.requests()); n != 1 {
		t.Errorf("target got %d requests, want 1 (the retry)", n)
	}
}

func TestTargetFaultsAreFailedAttemptsWithBoundedMessages(t *testing.T) {
	big := strings.Repeat("é", 5<<20) // 10 MB of two-byte runes
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			<-r.Context().Done()
		case "/500":
			http.Error(w, "nope\x00", http.StatusInternalServerError)
		case "/reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "/big":
			io.WriteString(w, big)
		}
	})
	none := `"retryPolicy":{"retryType":"none"}`
	ids := map[string]int64{}
	for _, p := range []string{"hang", "500", "reset", "big"} {
		ids[p] = e.put(p, `{"action":`+e.action("/"+p, none+`,"timeout":"PT1S"`)+`}`)
	}
	e.drain()
	msg := func(p string) models.HistoryEntry {
		h := e.history(ids[p])
		if len(h) != 1 {
			t.Fatalf("%s: %d history entries", p, len(h))
		}
		return h[0]
	}
	if h := msg("hang"); h.Status != models.StatusFailed || h.Message != "timed out after 1s" {
		t.Errorf("hang: %s %q", h.Status, h.Message)
	}
	if h := msg("500"); h.Status != models.StatusFailed || !strings.HasPrefix(h.Message, "HTTP 500 Internal Server Error\nnope") {
		t.Errorf("500: %s %q", h.Status, h.Message)
	}
	if h := msg("reset"); h.Status != models.StatusFailed || !strings.HasPrefix(h.Message, "request failed: ") {
		t.Errorf("reset: %s %q", h.Status, h.Message)
	}
	if h := msg("big"); h.Status != models.StatusCompleted || len(h.Message) != len("HTTP 200 OK\n")+2048 {
		t.Errorf("10 MB body: %s, message of %d bytes", h.Status, len(h.Message))
	}
	for p, id := range ids {
		if j := e.job(id); (p == "big") != (j.State == jobdef.Completed) {
			t.Errorf("%s: state %s", p, j.State)
		}
	}
}
