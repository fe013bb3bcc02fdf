package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/client"
)

// TestJobsBackfillAgainstAServer previews and starts a backfill with sked
// jobs backfill against a real server whose engine runs it against a real
// target, reads its progress with the client until it is done, and runs
// the job once with changes through the client.
func TestJobsBackfillAgainstAServer(t *testing.T) {
	var mu sync.Mutex
	var expected, replays []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		expected = append(expected, r.Header.Get("x-ms-scheduler-expected-execution-time"))
		replays = append(replays, r.Header.Get("X-Replay"))
		mu.Unlock()
	}))
	defer target.Close()
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	c, err := client.New(env["SKED_SERVER"], env["SKED_TOKEN"])
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref := client.CollectionRef{Subscription: "default", ResourceGroup: "ops", Name: "nightly"}
	if _, err := c.PutCollection(ctx, ref, []byte(`{"location": "westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutJob(ctx, ref, "hourly", []byte(`{"properties": {"startTime": "2026-01-01T00:00:00Z",
		"action": {"type": "http", "request": {"uri": "`+target.URL+`/hook", "method": "POST"}},
		"recurrence": {"frequency": "hour", "interval": 1}}}`)); err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	from := to.Add(-3 * time.Hour)
	args := []string{"jobs", "backfill", "hourly", "--resource-group", "ops", "--collection", "nightly",
		"--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339), "--max-concurrent", "2"}
	code, out, errOut := run(append(args, "--dry-run")...)
	if code != 0 || strings.Count(out, " run ") != 3 || !strings.Contains(out, "dry run: 3 to run, 0 skipped") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(args...)
	if code != 0 || !strings.Contains(out, "started backfill 1 of job default/ops/nightly/hourly: 3 to run") {
		t.Fatalf("backfill: exit %d\n%s%s", code, out, errOut)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := c.GetBackfill(ctx, ref, "hourly", 1)
		if err != nil {
			t.Fatal(err)
		}
		if b.State == "done" {
			if b.Succeeded != 3 || b.Done != 3 {
				t.Errorf("done: %+v", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the backfill did not end: %+v", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if bs, err := c.Backfills(ctx, ref, "hourly"); err != nil || len(bs) != 1 {
		t.Errorf("backfills: %+v %v", bs, err)
	}
	mu.Lock()
	got := strings.Join(expected, " ")
	mu.Unlock()
	for at := from; at.Before(to); at = at.Add(time.Hour) {
		if strings.Count(got, at.Format(time.RFC3339)) != 1 {
			t.Errorf("the target saw %s, want %s once", got, at.Format(time.RFC3339))
		}
	}
	// Again: nothing to run.
	if code, out, _ := run(args...); code != 0 || !strings.Contains(out, "0 to run, 3 skipped") || !strings.Contains(out, "already succeeded") {
		t.Errorf("a second backfill: exit %d\n%s", code, out)
	}
	if code, _, errOut := run(append(args, "--only", "some")...); code != 1 || !strings.Contains(errOut, "only") {
		t.Errorf("a bad --only: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("jobs", "backfill", "hourly", "--resource-group", "ops", "--collection", "nightly", "--from", "yesterday"); code != 2 || !strings.Contains(errOut, "--from") {
		t.Errorf("a bad --from: exit %d %s", code, errOut)
	}

	if err := c.RunJobWith(ctx, ref, "hourly", map[string]string{"X-Replay": "1"}, nil); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := strings.Count(strings.Join(replays, " "), "1")
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run with changes did not reach the target")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
