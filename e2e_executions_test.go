package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserExecutionDetailRerunAndRunningNow opens a failed run's
// detail page (request and response as sent and received), re-runs it
// from there and sees the re-run in the history and the trends; then
// watches a slow job (a target that holds the request until the test
// releases it) on the running-now page, which refreshes itself, until it
// ends. At 1280 and 375 px, with no console error.
func TestBrowserExecutionDetailRerunAndRunningNow(t *testing.T) {
	var healed atomic.Bool
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	held := make(chan struct{}, 4)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/slow"):
			held <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, "finally done")
		case strings.HasSuffix(r.URL.Path, "/flaky") && !healed.Load():
			w.Header().Set("X-Reason", "maintenance")
			http.Error(w, "the target says no", http.StatusServiceUnavailable)
		default:
			fmt.Fprintf(w, "fine: %s %s", r.Method, r.URL.Path)
		}
	}))
	defer target.Close()
	defer free()

	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)
	token := adminToken(t, dataDir, "e2e-exec")
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	const v = "?api-version=2016-03-01"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(path string) string {
		return `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + target.URL + path +
			`","method":"POST","body":"{\"ping\":1}","headers":{"X-Api-Key":"very-secret-key","Content-Type":"application/json"},
			"authentication":{"type":"basic","username":"ada","password":"hunter2-secret"}},"retryPolicy":{"retryType":"none"}},
			"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[3],"minutes":[15]},"timeZone":"Europe/Berlin"}}}`
	}
	apiCall(t, http.MethodPut, base+arm+"/jobs/flaky"+v, token, job("/flaky"), http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+"/jobs/slow"+v, token, job("/slow"), http.StatusCreated)
	apiCall(t, http.MethodPost, base+arm+"/jobs/flaky/run"+v, token, "", http.StatusOK)

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// untilPresent reloads path until sel matches.
	untilPresent := func(path, sel string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			waitDo(t, ctx, path, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main")))
			if count(sel) > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %s after 30 s", path, sel)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	// The failed run's detail page, from its history row.
	jobPath := "/c/default/ops/nightly/jobs/flaky"
	untilPresent(jobPath, `#history-table tbody tr [data-testid="history-rerun"]`)
	waitDo(t, ctx, "details", chromedp.Click(chromedp.CSS(`#history-table tbody tr [data-testid="history-details"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#execution-request`)))
	req, resp := text(`#execution-request`), text(`#execution-response`)
	for _, want := range []string{"POST " + target.URL + "/flaky", "Authorization Basic [masked]", "X-Api-Key [masked]", `{"ping":1}`} {
		if !strings.Contains(req, want) {
			t.Errorf("request section lacks %q: %s", want, req)
		}
	}
	if strings.Contains(req, "hunter2") || strings.Contains(req, "very-secret-key") {
		t.Errorf("the page shows a secret: %s", req)
	}
	if !strings.Contains(resp, "503 Service Unavailable") || !strings.Contains(resp, "the target says no") || !strings.Contains(resp, "X-Reason maintenance") {
		t.Errorf("response section: %s", resp)
	}
	if got := text(`#execution-instance`); got == "—" || got == "" {
		t.Errorf("instance %q", got)
	}
	if got := text(`#execution-key`); !strings.Contains(got, ":") {
		t.Errorf("Idempotency-Key %q", got)
	}
	screenshot(t, ctx, "executions-01-detail-1280")

	// Re-run it: the target has recovered.
	healed.Store(true)
	waitDo(t, ctx, "re-run", chromedp.Click(chromedp.CSS(`#execution-rerun-button`)), chromedp.WaitVisible(chromedp.CSS(`#execution-flash`)))
	if got := text(`#execution-flash`); !strings.Contains(got, "queued") {
		t.Errorf("flash %q", got)
	}
	untilPresent(jobPath, `#history-table [data-testid="history-rerun-note"]`)
	if got := text(`#history-table tbody tr:first-child`); !strings.Contains(got, "Completed") || !strings.Contains(got, "re-run of entry") ||
		!strings.Contains(got, "by admin") {
		t.Errorf("re-run row %q", got)
	}
	if n := count(`#trends-chart g.trend-bar`); n != 2 {
		t.Errorf("trend bars %d, want 2", n)
	}
	if got := text(`#job-trends dl`); !strings.Contains(got, "50 %") || !strings.Contains(got, "1 of 2 attempts succeeded") {
		t.Errorf("rates %q", got)
	}
	waitDo(t, ctx, "trends", chromedp.ScrollIntoView(chromedp.CSS(`#job-trends`)))
	screenshot(t, ctx, "executions-02-job-trends-1280")
	checkTrendsLayout(t, ctx, "the job page at 1280 px")

	// A slow job shows on the running-now page while the target holds it,
	// reached from the navigation; the page refreshes itself.
	waitDo(t, ctx, "running page", chromedp.Navigate(base+"/"), chromedp.Click(chromedp.CSS(`#nav-running`)),
		chromedp.WaitVisible(chromedp.CSS(`#running-empty`)))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 9")); err != nil {
		t.Fatal(err)
	}
	apiCall(t, http.MethodPost, base+arm+"/jobs/slow/run"+v, token, "", http.StatusOK)
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the slow job did not reach its target")
	}
	waitDo(t, ctx, "running row", chromedp.WaitVisible(chromedp.CSS(`#running-now tbody tr`)))
	if got := text(`#running-now tbody tr`); !strings.Contains(got, "slow") || !strings.Contains(got, "MainAction") {
		t.Errorf("running row %q", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 9 {
		t.Error("the running-now page reloaded instead of refreshing its table")
	}
	screenshot(t, ctx, "executions-03-running-1280")

	// The same pages at 375 px while it still runs.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ path, ready, name string }{
		{"/w/default/running", "#running-now tbody tr", "executions-04-running-375"},
		{jobPath, "#job-trends", "executions-05-job-375"},
	} {
		waitDo(t, ctx, p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		noSidewaysScroll(t, ctx, p.path+" at 375 px")
		screenshot(t, ctx, p.name)
		if p.path == jobPath {
			checkTrendsLayout(t, ctx, "the job page at 375 px")
		}
	}
	waitDo(t, ctx, "details at 375", chromedp.Click(chromedp.CSS(`#history-table tbody tr:last-child [data-testid="history-details"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#execution-request`)))
	noSidewaysScroll(t, ctx, "detail at 375 px")
	screenshot(t, ctx, "executions-06-detail-375")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	// Released, the attempt ends and leaves the list by itself.
	waitDo(t, ctx, "running page again", chromedp.Navigate(base+"/w/default/running"), chromedp.WaitVisible(chromedp.CSS(`#running-now tbody tr`)))
	free()
	waitDo(t, ctx, "running empty", chromedp.WaitVisible(chromedp.CSS(`#running-empty`)))
	if e := errs(); len(e) > 0 {
		t.Errorf("%d console errors:\n%s", len(e), strings.Join(e, "\n"))
	}
}
