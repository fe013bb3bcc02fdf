package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// Tests of POST …/jobs/{job}/run with changes (SPEC §16.4). The engine's
// side (the target sees the changes, once) is in scheduler/engine
// (TestRunWithChanges).

// TestARMRunWithChanges: an editor's run with changes queues an attempt
// carrying them, and the audit log records them with the Authorization
// value masked; a bad header is a 400 naming it, changes of a queue
// action a 400 naming request, and an operator may run only unchanged
// (403 with changes); refused requests queue nothing.
func TestARMRunWithChanges(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	f.app.token = tokenOf(t, f.app, 1)
	j := f.putJob(f.coll, "hook", pgJobJSON)
	run := rgPath("rg") + "/jc/jobs/hook/run"

	openAttempts := func() int {
		t.Helper()
		a, err := f.store.Attempts(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(a)
	}
	for _, tc := range []struct{ body, target string }{
		{`{"request":{"headers":{"Bad Name":"x"}}}`, "request.headers.Bad Name"},
		{`{"request":{"headers":{"X-Ok":"a\nb"}}}`, "request.headers.X-Ok"},
		{`{"request":{"body":7}}`, "request.body"},
		{`{"request":{"uri":"https://elsewhere.example/"}}`, "request.uri"},
		{`{"request":"x"}`, "request"},
		{`[1]`, "request"},
	} {
		r := f.arm(http.MethodPost, run, tc.body)
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(r.body, `"target":"`+tc.target+`"`) {
			t.Errorf("%s: the 400 does not name %s: %s", tc.body, tc.target, r.body)
		}
	}
	queue := f.putJob(f.coll, "queue", `{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acct","queueName":"jobs-queue","sasToken":"?sv=1&sig=x","message":"m"}},"startTime":"2026-11-01T00:00:00"}`)
	r := f.arm(http.MethodPost, rgPath("rg")+"/jc/jobs/queue/run", `{"request":{"body":"new"}}`)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, `"target":"request"`) || !strings.Contains(r.body, "http or https") {
		t.Errorf("changes of a queue action: %s", r.body)
	}
	if n := openAttempts(); n != 0 {
		t.Fatalf("refused runs queued %d attempts", n)
	}
	if a, _ := f.store.Attempts(ctx, queue.ID); len(a) != 0 {
		t.Fatalf("a refused run of the queue job queued %+v", a)
	}

	body := `{"request":{"headers":{"X-Replay":"1","Authorization":"Bearer s3cret-token"},"body":"{\"day\":\"2026-01-01\"}"}}`
	wantStatus(t, f.arm(http.MethodPost, run, body), http.StatusOK)
	var apply, shown string
	if err := openDB(t, f.app).QueryRow(`SELECT changes::text, changes_shown::text FROM job_attempts WHERE job_id = $1`, j.ID).
		Scan(&apply, &shown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(apply, "s3cret-token") || !strings.Contains(apply, `"X-Replay": "1"`) {
		t.Errorf("the attempt's changes to apply: %s", apply)
	}
	if strings.Contains(shown, "s3cret") || !strings.Contains(shown, "Bearer [masked]") || !strings.Contains(shown, "2026-01-01") {
		t.Errorf("the attempt's changes to show: %s", shown)
	}
	var detail, diff string
	if err := openDB(t, f.app).QueryRow(`SELECT detail, diff::text FROM audit_entries WHERE action = 'job.run.changes'`).
		Scan(&detail, &diff); err != nil {
		t.Fatalf("no audit entry of the run with changes: %v", err)
	}
	if strings.Contains(diff, "s3cret") || !strings.Contains(diff, "request.headers.X-Replay") ||
		!strings.Contains(diff, "request.body") || !strings.Contains(detail, "with changes") {
		t.Errorf("audit entry: %s %s", detail, diff)
	}

	// An operator runs unchanged, and is refused changes.
	f.asMember("olga", models.RoleOperator)
	u, err := f.store.UserByName(ctx, "olga")
	if err != nil {
		t.Fatal(err)
	}
	f.app.token = tokenOf(t, f.app, u.ID)
	before := openAttempts()
	r = f.arm(http.MethodPost, run, `{"request":{"headers":{"X-Replay":"2"}}}`)
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.body, "editor") {
		t.Errorf("the 403 does not name the editor role: %s", r.body)
	}
	if n := openAttempts(); n != before {
		t.Errorf("a refused run queued an attempt")
	}
	// (Each run now is an occurrence at the clock's now: one per instant.)
	f.clock.Advance(time.Second)
	wantStatus(t, f.arm(http.MethodPost, run, ""), http.StatusOK)
	f.clock.Advance(time.Second)
	wantStatus(t, f.arm(http.MethodPost, run, `{}`), http.StatusOK)
	if n := openAttempts(); n != before+2 {
		t.Errorf("the operator's runs: %d open attempts, want %d", n, before+2)
	}
}
