package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

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

// TestBrowserJobPageTimelineAndNote checks the job page at 1280 and 375
// px, with no console error: two runs started in the same second drawn as
// two dots on the timeline; a paused job's note changed from its page
// without a page load (refused in place when too long), also shown in
// "All jobs"; and the page in dark mode.
func TestBrowserJobPageTimelineAndNote(t *testing.T) {
	target := failOnFailTarget(t)
	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)
	token := adminToken(t, dataDir, "e2e-jobpage")
	const v = "?api-version=2016-03-01"
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(name, path string) {
		body := `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + target.URL + path +
			`","method":"POST"},"retryPolicy":{"retryType":"none"}},"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[3],"minutes":[15]},"timeZone":"Europe/Berlin"}}}`
		apiCall(t, http.MethodPut, base+arm+"/jobs/"+name+v, token, body, http.StatusCreated)
	}
	for _, name := range []string{"twice-0", "twice-1", "twice-2"} {
		job(name, "/"+name)
	}
	job("flaky", "/flaky/fail")

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	eval := func(js string) bool {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return ok
	}

	// Two runs started in the same second draw two dots. Both runs of a
	// job are asked for at once, so that the engine starts them together;
	// a pair that fell on two seconds is tried again with the next job
	// (runs a second apart may touch at this scale: only the same second
	// is drawn apart on purpose).
	type entry struct {
		Properties struct {
			StartTime string `json:"startTime"`
		} `json:"properties"`
	}
	history := func(name string) []time.Time {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+arm+"/jobs/"+name+"/history"+v, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list struct{ Value []entry }
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for _, e := range list.Value {
			at, err := time.Parse(time.RFC3339Nano, e.Properties.StartTime)
			if err != nil {
				t.Fatalf("start time %q: %v", e.Properties.StartTime, err)
			}
			out = append(out, at)
		}
		return out
	}
	sameSecond, twice := false, ""
	for try := 0; try < 3 && !sameSecond; try++ {
		twice = fmt.Sprintf("twice-%d", try)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { apiCall(t, http.MethodPost, base+arm+"/jobs/"+twice+"/run"+v, token, "", http.StatusOK) })
		}
		wg.Wait()
		deadline := time.Now().Add(30 * time.Second)
		var got []time.Time
		for got = history(twice); len(got) < 2 && time.Now().Before(deadline); got = history(twice) {
			time.Sleep(200 * time.Millisecond)
		}
		if len(got) != 2 {
			t.Fatalf("%s: %d history entries after 30 s, want 2", twice, len(got))
		}
		sameSecond = got[0].Unix() == got[1].Unix()
	}
	if !sameSecond {
		t.Fatal("the engine never started two runs in the same second: the timeline check has nothing to draw")
	}
	waitDo(t, ctx, "job "+twice, chromedp.Navigate(base+"/c/default/ops/nightly/jobs/"+twice), chromedp.WaitVisible(chromedp.ID("job-timeline")))
	// Both runs are dots, and the two do not cover each other.
	js := `(() => { const r = [...document.querySelectorAll("#job-timeline g.timeline-mark")].map(g => g.querySelector("circle, rect, polygon").getBoundingClientRect());
		for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)
			if (r[i].left < r[j].right - 1 && r[j].left < r[i].right - 1 && r[i].top < r[j].bottom - 1 && r[j].top < r[i].bottom - 1) return -1;
		return r.length })()`
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil || n != 2 {
		t.Errorf("timeline dots %d (-1: they cover each other), want 2 apart (%v)", n, err)
	}
	waitDo(t, ctx, "timeline", chromedp.ScrollIntoView(chromedp.ID("job-timeline")))
	screenshot(t, ctx, "jobpage-01-timeline-same-second-1280")

	// A failed job, paused with a note from its page; the note changes
	// from the "Why is it paused?" form without a page load.
	apiCall(t, http.MethodPost, base+arm+"/jobs/flaky/run"+v, token, "", http.StatusOK)
	flaky := "/c/default/ops/nightly/jobs/flaky"
	deadline := time.Now().Add(30 * time.Second)
	for {
		waitDo(t, ctx, "flaky", chromedp.Navigate(base+flaky), chromedp.WaitVisible(chromedp.ID("job-status")))
		if eval(`document.querySelectorAll("#history-table tbody tr").length > 0`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	waitDo(t, ctx, "disable", chromedp.SendKeys(chromedp.ID("job-disable-note"), "vendor maintenance"),
		chromedp.Click(chromedp.ID("job-disable")), chromedp.WaitVisible(chromedp.ID("job-note-form")))
	if got := text("#job-state-note"); !strings.HasSuffix(got, ": vendor maintenance") {
		t.Errorf("note after disabling %q", got)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 16")); err != nil {
		t.Fatal(err)
	}
	// Too long (the field's maxlength stops typing; a script is not
	// stopped): refused in place, the text kept.
	long := strings.Repeat("x", 501)
	if !eval(`(() => { document.getElementById("job-note").value = "` + long + `"; return true })()`) {
		t.Fatal("could not fill the note")
	}
	waitDo(t, ctx, "refused note", chromedp.Click(chromedp.ID("job-note-save")), chromedp.WaitVisible(chromedp.CSS(`#job-note[aria-invalid="true"]`)))
	if got := text("#job-note-error"); !strings.Contains(got, "over the maximum of 500") {
		t.Errorf("refusal %q", got)
	}
	screenshot(t, ctx, "jobpage-02-note-refused-1280")
	if !eval(`(() => { document.getElementById("job-note").value = ""; return true })()`) {
		t.Fatal("could not clear the note")
	}
	waitDo(t, ctx, "save note", chromedp.SendKeys(chromedp.ID("job-note"), "back on Monday after the vendor's maintenance"),
		chromedp.Click(chromedp.ID("job-note-save")), chromedp.WaitVisible(chromedp.ID("job-notice")))
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](`document.getElementById("job-state-note").textContent.includes("back on Monday")`)); err != nil {
		t.Fatalf("the saved note does not show: %q (%v)", text("#job-state-note"), err)
	}
	if got := text("#job-state"); got != "Disabled" {
		t.Errorf("state after the note %q", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 16 {
		t.Error("saving the note reloaded the page")
	}
	if got := text("#job-notice"); got != "The note is saved." {
		t.Errorf("notice %q", got)
	}
	waitDo(t, ctx, "trends", chromedp.ScrollIntoView(chromedp.ID("job-trends")))
	screenshot(t, ctx, "jobpage-03-trends-note-1280")
	// The note shows in the list of every job too.
	waitDo(t, ctx, "all jobs", chromedp.Navigate(base+"/jobs?q=flaky"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	if got := text(`tr[data-job="flaky"] .state-note`); !strings.Contains(got, "back on Monday") {
		t.Errorf("All jobs note %q", got)
	}

	// A phone: the job page with its note and trends.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "375 job", chromedp.Navigate(base+flaky), chromedp.WaitVisible(chromedp.ID("job-note-form")))
	noSidewaysScroll(t, ctx, "job page at 375 px")
	screenshot(t, ctx, "jobpage-04-trends-note-375")

	// Dark mode: the job page with its note and trends.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "dark job", chromedp.Navigate(base+flaky), chromedp.WaitVisible(chromedp.ID("job-note-form")))
	screenshot(t, ctx, "jobpage-05-dark-1280")

	// The one 422 is the refused note above: the browser's network log
	// reports the status a refused form is answered with by design.
	var e []string
	for _, m := range errs() {
		if !strings.Contains(m, "status of 422") || !strings.Contains(m, flaky+"/note") {
			e = append(e, m)
		}
	}
	if len(e) > 0 {
		t.Errorf("%d console errors:\n%s", len(e), strings.Join(e, "\n"))
	}
}
