package engine

import (
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// TestExecutionDetailsKeepTheExchangeWithoutSecrets: an attempt's detail
// holds the request as sent (method, URL, headers, body) and the response
// (status, headers, the first 2,048 bytes of the body), the instance and
// the times; the Authorization header, the basic-auth password, secret
// headers and query secrets never reach the tables, even when the target
// echoes them.
func TestExecutionDetailsKeepTheExchangeWithoutSecrets(t *testing.T) {
	const password = "hunter2-very-secret"
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	e := &env{t: t, ctx: t.Context(), store: store, coll: newCollection(t, store),
		clock: newFakeClock(time.Now().Add(5 * time.Second).Truncate(time.Second))}
	e.target = newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "session=cookie-secret-value")
		w.Header().Set("X-Trace", "trace-1")
		w.WriteHeader(http.StatusBadGateway)
		// Echo the credentials, then far more than 2,048 bytes.
		_, _ = io.WriteString(w, r.Header.Get("Authorization")+" "+password+" "+strings.Repeat("x", 5000))
	})
	eng, err := New(allowLoopback(Config{InstanceID: "instance-a", MaxWorkers: 4}), Deps{Store: store, Clock: e.clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.useEngine(eng)
	body := strings.Repeat("b", 8000) // a job's body is at most 8,192 characters
	def := fmt.Sprintf(`{"action":{"type":"http","request":{"uri":%q,"method":"PUT","body":%q,
		"headers":{"X-Api-Key":"key-material-123","X-Plain":"plain-value"},
		"authentication":{"type":"basic","username":"ada","password":%q}},
		"retryPolicy":{"retryType":"none"}}}`, e.target.URL+"/hook?sig=query-secret-456&page=2", body, password)
	id := e.put("secretive", def)
	e.drain()
	h := e.history(id)
	if len(h) != 1 || h[0].Status != models.StatusFailed {
		t.Fatalf("history %v; attempts %+v", historyLines(h), e.attempts(id))
	}
	d, err := store.ExecutionDetail(e.ctx, id, h[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasDetails || d.Instance != "instance-a" || d.DueAt == nil || d.ClaimedAt == nil || d.SentAt == nil {
		t.Fatalf("detail %+v", d)
	}
	if d.IdempotencyKey == "" || !strings.HasPrefix(d.IdempotencyKey, fmt.Sprint(id)+":") {
		t.Errorf("Idempotency-Key %q", d.IdempotencyKey)
	}
	req := d.Request
	if req == nil || req.Method != "PUT" || !strings.Contains(req.URL, "/hook?sig=%5Bmasked%5D&page=2") {
		t.Fatalf("request %+v", req)
	}
	if req.Body != body || req.BodyTruncated {
		t.Errorf("request body %d bytes, truncated %v; want the whole body", len(req.Body), req.BodyTruncated)
	}
	headers := map[string]string{}
	for _, hf := range req.Headers {
		headers[strings.ToLower(hf.Name)] = hf.Value
	}
	for name, want := range map[string]string{"authorization": "Basic [masked]", "x-api-key": "[masked]", "x-plain": "plain-value",
		"idempotency-key": d.IdempotencyKey} {
		if headers[name] != want {
			t.Errorf("request header %s = %q, want %q", name, headers[name], want)
		}
	}
	resp := d.Response
	if resp == nil || resp.Status != http.StatusBadGateway || !resp.BodyTruncated || len(resp.Body) > models.MaxDetailResponseBody {
		t.Fatalf("response %+v", resp)
	}
	respHeaders := map[string]string{}
	for _, hf := range resp.Headers {
		respHeaders[strings.ToLower(hf.Name)] = hf.Value
	}
	if respHeaders["set-cookie"] != "[masked]" || respHeaders["x-trace"] != "trace-1" {
		t.Errorf("response headers %v", respHeaders)
	}
	// Nothing secret anywhere in the tables.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var dump string
	if err := db.QueryRow(`SELECT coalesce((SELECT string_agg(d::text, ' ') FROM job_history_details d), '') ||
		coalesce((SELECT string_agg(h::text, ' ') FROM job_history h), '')`).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("ada:" + password))
	for _, secret := range []string{password, basic, "key-material-123", "query-secret-456", "cookie-secret-value"} {
		if strings.Contains(dump, secret) {
			t.Errorf("the tables hold the secret %q", secret)
		}
	}
	if !strings.Contains(dump, "plain-value") {
		t.Error("the dump misses the plain header: the check reads the wrong rows")
	}
}

// TestRerunGetsTheWholeRetryPolicyAndIsRecorded: re-running a failed
// occurrence makes a new attempt of it (same expected time, occurrence and
// Idempotency-Key), retried as the job's policy says, then the error
// action; every entry says which entry it re-runs and who asked. A
// succeeded occurrence is refused, as is one still open.
func TestRerunGetsTheWholeRetryPolicyAndIsRecorded(t *testing.T) {
	var ok atomic.Bool
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if ok.Load() || r.URL.Path == "/error" {
			_, _ = io.WriteString(w, "fine")
			return
		}
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	start := e.clock.Now().Add(time.Minute)
	def := fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"day"},"action":{"type":"http","request":{"uri":%q,"method":"GET"},
		"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1},
		"errorAction":{"type":"http","request":{"uri":%q,"method":"GET"},"retryPolicy":{"retryType":"none"}}}}`,
		rfc(start), e.target.URL+"/main", e.target.URL+"/error")
	id := e.put("daily", def)
	e.drain()
	e.clock.Set(start)
	e.drain()
	e.clock.Add(15 * time.Second)
	e.drain()
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1",
		"ErrorAction Completed retry=0 repeat=1")
	first := h[0]

	if _, err := e.store.Rerun(e.ctx, id, h[2].ID, "alice", e.clock.Now()); err == nil {
		t.Error("re-running a completed entry: no error")
	}
	if _, err := e.store.Rerun(e.ctx, id, 999999, "alice", e.clock.Now()); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("re-running an unknown entry: %v", err)
	}
	if _, err := e.store.Rerun(e.ctx, id, first.ID, "alice", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	var ce *models.ConflictError
	if _, err := e.store.Rerun(e.ctx, id, first.ID, "alice", e.clock.Now()); !errors.As(err, &ce) || !strings.Contains(ce.Message, "still running") {
		t.Errorf("a second re-run while the first waits: %v", err)
	}
	e.drain()
	e.clock.Add(15 * time.Second)
	e.drain()
	h = e.history(id)
	wantLines(t, historyLines(h), "MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1",
		"ErrorAction Completed retry=0 repeat=1",
		"MainAction Failed retry=2 repeat=1", "MainAction Failed retry=3 repeat=1", "ErrorAction Completed retry=1 repeat=1")
	for _, r := range h[3:] {
		if r.RerunOf == nil || *r.RerunOf != first.ID || r.RerunBy == nil || *r.RerunBy != "alice" ||
			!r.ExpectedExecutionTime.Equal(first.ExpectedExecutionTime) {
			t.Errorf("re-run entry %d: rerun_of %v by %v expected %v", r.ID, r.RerunOf, r.RerunBy, r.ExpectedExecutionTime)
		}
	}
	keys := map[string]bool{}
	for _, r := range e.target.requests() {
		keys[r.Key] = true
	}
	if len(keys) != 1 {
		t.Errorf("Idempotency-Keys %v: want the occurrence's one", keys)
	}
	d, err := e.store.ExecutionDetail(e.ctx, id, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.RerunEntries) != 3 {
		t.Errorf("re-run entries of the first: %v", d.RerunEntries)
	}

	// A re-run that succeeds ends the occurrence's failure: no more re-runs.
	ok.Store(true)
	if _, err := e.store.Rerun(e.ctx, id, first.ID, "bob", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.drain()
	h = e.history(id)
	if last := h[len(h)-1]; last.Status != models.StatusCompleted || last.RetryCount != 4 || *last.RerunBy != "bob" {
		t.Errorf("last entry %s by %v", historyLine(last), last.RerunBy)
	}
	if _, err := e.store.Rerun(e.ctx, id, first.ID, "bob", e.clock.Now()); !errors.As(err, &ce) || !strings.Contains(ce.Message, "already succeeded") {
		t.Errorf("re-running a succeeded occurrence: %v", err)
	}
	if j := e.job(id); j.State != jobdef.Enabled {
		t.Errorf("state %s", j.State)
	}
}
