package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// backfillTarget records what the backfill browser test's job sends: the
// expected time of every request, the most requests in flight at once,
// and the X-Replay header and body of each.
type backfillTarget struct {
	mu       sync.Mutex
	expected []string
	replays  []string
	bodies   []string
	inFlight int
	most     int
}

func (bt *backfillTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	bt.mu.Lock()
	bt.inFlight++
	bt.most = max(bt.most, bt.inFlight)
	bt.expected = append(bt.expected, r.Header.Get("x-ms-scheduler-expected-execution-time"))
	bt.replays = append(bt.replays, r.Header.Get("X-Replay"))
	bt.bodies = append(bt.bodies, string(body))
	bt.mu.Unlock()
	// Long enough for the backfill's runs to overlap if nothing held
	// them back.
	time.Sleep(150 * time.Millisecond)
	bt.mu.Lock()
	bt.inFlight--
	bt.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

// TestBrowserBackfillAndRunWithChanges opens a job's page, previews a
// backfill of five past hours (the dry run's table), starts it with two
// at once against a real target and watches its progress reach done;
// then runs the job once with a changed header and body from "Run with
// changes…".
func TestBrowserBackfillAndRunWithChanges(t *testing.T) {
	bt := &backfillTarget{}
	target := httptest.NewServer(bt)
	defer target.Close()

	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	token := adminToken(t, dataDir, "e2e-backfill")
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	const v = "?api-version=2016-03-01"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+"/jobs/hourly"+v, token, `{"properties":{"startTime":"2026-01-01T00:00:00Z",
		"action":{"type":"http","request":{"uri":"`+target.URL+`/hook","method":"POST","body":"as defined","headers":{"X-Replay":"0"}},
		"retryPolicy":{"retryType":"none"}},"recurrence":{"frequency":"hour","interval":1}}}`, http.StatusCreated)

	// Five whole past hours, in UTC (the admin's zone).
	to := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	from := to.Add(-5 * time.Hour)
	var want []string
	for at := from; at.Before(to); at = at.Add(time.Hour) {
		want = append(want, at.Format(time.RFC3339))
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}

	page := base + "/c/default/ops/nightly/jobs/hourly"
	waitDo(t, ctx, "the job page", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("backfill-form")),
		chromedp.WaitVisible(chromedp.ID("job-backfills-none")))
	waitDo(t, ctx, "preview",
		chromedp.SetValue(chromedp.ID("backfill-from"), from.Format("2006-01-02T15:04")),
		chromedp.SetValue(chromedp.ID("backfill-to"), to.Format("2006-01-02T15:04")),
		chromedp.SetValue(chromedp.ID("backfill-max"), "2"),
		chromedp.Click(chromedp.ID("backfill-preview")),
		chromedp.WaitVisible(chromedp.ID("backfill-preview-table")))
	if n := count(`[data-testid="backfill-row"]`); n != 5 {
		t.Fatalf("the preview has %d rows, want 5: %s", n, text("#backfill-form"))
	}
	if s := text("#backfill-preview-summary"); s != "5 occurrences in the range: 5 to run, 0 skipped." {
		t.Errorf("preview summary %q", s)
	}
	screenshot(t, ctx, "backfill-01-preview")

	waitDo(t, ctx, "start", chromedp.Click(chromedp.ID("backfill-start")), chromedp.WaitVisible(chromedp.ID("backfill-message")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="backfill-item"]`)))
	if s := text("#backfill-message"); !strings.Contains(s, "5 to run, 0 skipped") {
		t.Errorf("start message %q", s)
	}
	// The list refreshes itself every 2 s while the backfill runs.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`document.querySelector('[data-testid="backfill-state"]').textContent.trim() === "Done"`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the backfill did not reach done: %s (%v)", text("#job-backfills"), err)
	}
	if s := text(`[data-testid="backfill-progress"]`); !strings.HasPrefix(s, "5 of 5 done: 5 succeeded, 0 failed") {
		t.Errorf("progress %q", s)
	}
	// The list's answers that show runs ended send sked-history-changed:
	// the history table shows the backfilled runs, each marked.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`document.querySelectorAll('#job-history [data-testid="history-details"]').length >= 5`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the history does not show the backfilled runs: %s (%v)", text("#job-history"), err)
	}
	if s := text("#job-history"); !strings.Contains(s, "backfill 1") {
		t.Errorf("the history rows do not say backfill 1: %s", s)
	}
	screenshot(t, ctx, "backfill-02-done")

	bt.mu.Lock()
	got := slices.Clone(bt.expected)
	most := bt.most
	bt.mu.Unlock()
	var inRange []string
	for _, e := range got {
		if slices.Contains(want, e) {
			inRange = append(inRange, e)
		}
	}
	slices.Sort(inRange)
	if fmt.Sprint(inRange) != fmt.Sprint(want) {
		t.Errorf("the target saw the expected times %v, want each of %v once", got, want)
	}
	if most > 2 {
		t.Errorf("%d requests in flight at once, over maxConcurrent 2", most)
	}

	// Run once with changes.
	waitDo(t, ctx, "run with changes",
		chromedp.Click(chromedp.CSS(`#job-run-changes summary`)),
		chromedp.WaitVisible(chromedp.ID("run-changes-headers")),
		chromedp.SetValue(chromedp.ID("run-changes-headers"), "X-Replay: 1"),
		chromedp.SetValue(chromedp.ID("run-changes-body"), `{"day":"yesterday"}`),
		chromedp.Click(chromedp.ID("job-run-changes-submit")),
		chromedp.WaitVisible(chromedp.CSS(`#job-notice [role="status"]`)))
	if s := text("#job-notice"); !strings.Contains(s, "with your changes") {
		t.Errorf("notice %q", s)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		bt.mu.Lock()
		i := slices.Index(bt.replays, "1")
		body := ""
		if i >= 0 {
			body = bt.bodies[i]
		}
		bt.mu.Unlock()
		if i >= 0 {
			if body != `{"day":"yesterday"}` {
				t.Errorf("the changed run's body %q", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run with changes did not reach the target")
		}
		time.Sleep(100 * time.Millisecond)
	}
	screenshot(t, ctx, "backfill-03-run-with-changes")
}
