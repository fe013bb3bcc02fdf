package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startSkedAllowing is startSked with the engine allowed to call the
// networks allow (the loopback targets of browser tests).
func startSkedAllowing(t *testing.T, dataDir string, allow []netip.Prefix) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	cfg := Config{Listen: "127.0.0.1:0", DataDir: dataDir, LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second,
		AllowTargets: allow}
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)), func(a net.Addr) { addrs <- a })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sked stopped with %v\nlogs:\n%s", err, logs)
		}
	})
	select {
	case a := <-addrs:
		skedLogs.Store("http://"+a.String(), logs)
		return "http://" + a.String()
	case err := <-done:
		done <- err
		t.Fatalf("sked did not start: %v\nlogs:\n%s", err, logs)
	case <-time.After(90 * time.Second):
		t.Fatalf("sked did not start within 90 s\nlogs:\n%s", logs)
	}
	return ""
}

// apiCall sends a REST API request with a bearer token and fails t unless
// it answers want.
// adminToken issues an API token named name for the administrator of the
// Sked whose data directory is dataDir (sked token add) and returns it.
func adminToken(t *testing.T, dataDir, name string) string {
	t.Helper()
	code, stdout, stderr := runForTest([]string{"token", "add", "admin", "--name", name}, map[string]string{"SKED_DATA_DIR": dataDir}, "")
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, stderr)
	}
	return strings.TrimSpace(stdout)
}

func apiCall(t *testing.T, method, url, token, body string, want int) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d\n%s", method, url, resp.StatusCode, want, b)
	}
}

// TestBrowserDashboardCollectionAndJobPages signs in, creates a collection
// and two jobs through the REST API, looks at the dashboard, the
// collection page and the job page, presses "Run now" against a local
// target and sees the execution in the history table, on the timeline and
// in the trends, at 1280 and 375 px; then deletes a job after confirming.
func TestBrowserDashboardCollectionAndJobPages(t *testing.T) {
	var hits atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasSuffix(r.URL.Path, "/fail") {
			http.Error(w, "the target says no", http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "hello from the target: %s %s", r.Method, r.URL.Path)
	}))
	defer target.Close()

	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	dialogs := acceptDialogs(ctx)
	setupAndSignIn(t, ctx, base)

	token := adminToken(t, dataDir, "e2e-pages")
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	const v = "?api-version=2016-03-01"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(uri string) string {
		return `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + uri +
			`","method":"POST","body":"ping"},"retryPolicy":{"retryType":"none"}},
			"recurrence":{"frequency":"hour","interval":1,"schedule":{"minutes":[15]},"timeZone":"Europe/Berlin"}}}`
	}
	apiCall(t, http.MethodPut, base+arm+"/jobs/report"+v, token, job(target.URL+"/report"), http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+"/jobs/flaky"+v, token, job(target.URL+"/fail"), http.StatusCreated)
	apiCall(t, http.MethodPost, base+arm+"/jobs/flaky/run"+v, token, "", http.StatusOK)

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

	// The dashboard: the collection, the upcoming runs, the failure (once
	// the engine ran "flaky") and the picture of the last 24 hours.
	deadline := time.Now().Add(20 * time.Second)
	for {
		waitWithin(t, ctx, 20*time.Second, "dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#activity svg`)))
		if count(`#failures li`) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := text(`#failures li`); !strings.Contains(got, "flaky") || !strings.Contains(got, "Failed") {
		t.Errorf("recent failures: %q", got)
	}
	if n := count(`#upcoming li time[datetime]`); n != 2 {
		t.Errorf("upcoming occurrences with <time>: %d, want 2", n)
	}
	if n := count(`#activity g.activity-bar`); n != 1 {
		t.Errorf("activity bars: %d, want 1", n)
	}
	screenshot(t, ctx, "pages-01-dashboard-1280")

	// The collection page, through the dashboard's link.
	waitWithin(t, ctx, 20*time.Second, "collection page", chromedp.Click(chromedp.CSS(`#collections a[href="/c/default/ops/nightly"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#collection-jobs`)))
	if got := text(`#quota-text`); got != "2 of 50 jobs" {
		t.Errorf("quota %q", got)
	}
	if got := text(`#collection-jobs tr[data-job="flaky"]`); !strings.Contains(got, "Failed") || !strings.Contains(got, "At 15 minutes past every hour (Europe/Berlin)") {
		t.Errorf("flaky's row %q", got)
	}
	screenshot(t, ctx, "pages-02-collection-1280")

	// The job page: run now, then the entry appears in the table and on
	// the timeline without reloading the page (htmx refreshes both).
	waitWithin(t, ctx, 20*time.Second, "job page", chromedp.Click(chromedp.CSS(`#collection-jobs a[href="/c/default/ops/nightly/jobs/report"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-status`)))
	if n := count(`#job-next li time[datetime]`); n != 10 {
		t.Errorf("next occurrences: %d, want 10", n)
	}
	if n := count(`#history-table tbody tr`); n != 0 {
		t.Fatalf("history before running: %d rows", n)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 7")); err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	waitWithin(t, ctx, 20*time.Second, "run now", chromedp.Click(chromedp.CSS(`#job-run`)), chromedp.WaitVisible(chromedp.CSS(`#job-message`)))
	if got := text(`#job-message`); !strings.Contains(got, "runs now") {
		t.Errorf("run now message %q", got)
	}
	waitWithin(t, ctx, 20*time.Second, "history entry", chromedp.WaitVisible(chromedp.CSS(`#history-table tbody tr`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-timeline g.timeline-mark[data-status="Completed"]`)))
	if hits.Load() <= before {
		t.Error("the target was not called")
	}
	// The status refreshes itself too: counters and last run.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#job-executions").textContent.trim() === "1"`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("the counters did not follow the run: %v (executions %q)", err, text(`#job-executions`))
	}
	// And so do the trends: they count the run the history shows.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector("#trends-caption") || {}).textContent === "Duration and lateness of the last 1 run"`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("the trends did not follow the run: %v (%q)", err, text(`#job-trends`))
	}
	if got := text(`#job-trends dd`); !strings.Contains(got, "1 of 1 attempt succeeded") {
		t.Errorf("success rate after the run: %q", got)
	}
	if got := text(`#job-status dl > div:last-child dd`); !strings.HasPrefix(got, "Completed") {
		t.Errorf("last run %q", got)
	}
	if got := text(`#history-table tbody tr`); !strings.Contains(got, "Completed") || !strings.Contains(got, "MainAction") {
		t.Errorf("history row %q", got)
	}
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); err != nil || marker != 7 {
		t.Errorf("the page reloaded instead of swapping fragments (marker %d, %v)", marker, err)
	}
	// The entry opens its message.
	waitWithin(t, ctx, 20*time.Second, "message", chromedp.Click(chromedp.CSS(`#history-table tbody tr details summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#history-table tbody tr details pre`)))
	if got := text(`#history-table tbody tr details pre`); !strings.Contains(got, "hello from the target: POST /report") {
		t.Errorf("message %q", got)
	}
	// The mark takes the keyboard focus and then shows its details.
	waitWithin(t, ctx, 20*time.Second, "focus mark", chromedp.Focus(chromedp.CSS(`#job-timeline g.timeline-mark`)))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`getComputedStyle(document.querySelector("#job-timeline g.timeline-mark g")).display`))
	if err != nil || shown == "none" {
		t.Errorf("the focused mark's details stay hidden (display %q, %v)", shown, err)
	}
	label, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("aria-label") || ""`))
	if err != nil || !strings.HasPrefix(label, "Completed, MainAction") {
		t.Errorf("focused mark label %q (%v)", label, err)
	}
	screenshot(t, ctx, "pages-03-job-1280")

	// The 7-day range swaps only the timeline.
	waitWithin(t, ctx, 20*time.Second, "7 d", chromedp.Click(chromedp.CSS(`#job-timeline nav a:nth-child(2)`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-timeline nav a[aria-current]:nth-child(2)`)))
	if got := text(`#timeline-caption`); !strings.Contains(got, "7 days") {
		t.Errorf("caption after 7 d: %q", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 7 {
		t.Error("switching the range reloaded the page")
	}

	// The same pages at 375 px: no sideways scrolling.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	for i, p := range []struct{ path, ready, name string }{
		{"/", "#activity svg", "pages-04-dashboard-375"},
		{"/c/default/ops/nightly", "#collection-jobs", "pages-05-collection-375"},
		{"/c/default/ops/nightly/jobs/report", "#history-table tbody tr", "pages-06-job-375"},
	} {
		waitWithin(t, ctx, 20*time.Second, p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		noSidewaysScroll(t, ctx, fmt.Sprintf("%s at 375 px (%d)", p.path, i))
		screenshot(t, ctx, p.name)
	}

	// Delete "flaky" with htmx after confirming: back on the collection.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	waitWithin(t, ctx, 20*time.Second, "flaky", chromedp.Navigate(base+"/c/default/ops/nightly/jobs/flaky"), chromedp.WaitVisible(chromedp.CSS(`#job-delete`)),
		chromedp.Click(chromedp.CSS(`#job-delete`)), chromedp.WaitVisible(chromedp.CSS(`#flash`)))
	if got := text(`#flash`); !strings.Contains(got, "flaky") {
		t.Errorf("flash after delete %q", got)
	}
	if d := dialogs(); len(d) != 1 || !strings.Contains(d[0], "Delete the job flaky") {
		t.Errorf("confirmations %q", d)
	}
	if n := count(`#collection-jobs tbody tr`); n != 1 {
		t.Errorf("jobs after delete: %d", n)
	}
	screenshot(t, ctx, "pages-07-collection-after-delete-1280")
}
