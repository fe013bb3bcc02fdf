package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserAllJobsSearch creates jobs in two collections through the
// REST API, opens "All jobs" from the navigation, types in the search box
// and sees the list narrow without a page load (the URL follows), filters
// by state and sorts by name, at 1280 and 375 px.
func TestBrowserAllJobsSearch(t *testing.T) {
	target := failOnFailTarget(t)
	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)

	token := adminToken(t, dataDir, "e2e-alljobs")
	const v = "?api-version=2016-03-01"
	coll := func(rg, name string) string {
		arm := "/subscriptions/default/resourceGroups/" + rg + "/providers/Microsoft.Scheduler/jobCollections/" + name
		apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
		return arm
	}
	billing, ops := coll("prod", "billing"), coll("prod", "ops")
	job := func(arm, name, path, zone, state string, minute int) {
		body := `{"properties":{"startTime":"2026-01-01T00:00:00","state":"` + state + `","action":{"type":"http","request":{"uri":"` + target.URL + path +
			`","method":"POST"},"retryPolicy":{"retryType":"none"}},"recurrence":{"frequency":"hour","interval":1,"schedule":{"minutes":[` +
			fmt.Sprint(minute) + `]},"timeZone":"` + zone + `"}}}`
		apiCall(t, http.MethodPut, base+arm+"/jobs/"+name+v, token, body, http.StatusCreated)
	}
	job(billing, "invoice-run", "/payments/invoices", "Europe/Berlin", "Enabled", 5)
	job(billing, "dunning-letters", "/payments/dunning", "Europe/Berlin", "Enabled", 20)
	job(billing, "refund-sync", "/payments/refunds/fail", "America/New_York", "Enabled", 35)
	job(billing, "tax-export", "/exports/tax", "UTC", "Disabled", 50)
	job(ops, "nightly-backup", "/backup/run", "UTC", "Enabled", 10)
	job(ops, "cache-warmup", "/cache/warm", "Asia/Tokyo", "Enabled", 45)
	job(ops, "log-rotate", "/logs/rotate", "UTC", "Enabled", 0)
	apiCall(t, http.MethodPost, base+billing+"/jobs/refund-sync/run"+v, token, "", http.StatusOK)
	apiCall(t, http.MethodPost, base+ops+"/jobs/nightly-backup/run"+v, token, "", http.StatusOK)

	// set gives the element id a value and sends it event, as the
	// browser does when a user changes it.
	set := func(id, value, event string) {
		t.Helper()
		js := `(() => { const e = document.getElementById("` + id + `"); e.value = "` + value + `"; return e.dispatchEvent(new Event("` + event + `", {bubbles: true})) })()`
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() []string {
		t.Helper()
		names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#all-jobs-results tbody tr")].map(r => r.dataset.job)`))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	waitRows := func(what string, n int) {
		t.Helper()
		js := fmt.Sprintf(`new Promise((done) => { const f = () => document.querySelectorAll("#all-jobs-results tbody tr").length === %d && !document.querySelector("#all-jobs-filter.htmx-request") ? done(true) : setTimeout(f, 50); f(); })`, n)
		tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("%s: want %d rows, have %v (%v)", what, n, rows(), err)
		}
	}

	// From the navigation; wait for the engine's two runs.
	waitDo(t, ctx, "all jobs", chromedp.Navigate(base+"/"), chromedp.Click(chromedp.ID("nav-all-jobs")), chromedp.WaitVisible(chromedp.ID("all-jobs-q")))
	deadline := time.Now().Add(20 * time.Second)
	for {
		waitDo(t, ctx, "reload", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#all-jobs-results tbody .bg-red-100, #all-jobs-results tbody .bg-emerald-100").length`))
		if n >= 9 || time.Now().After(deadline) { // 6 enabled badges + 2 results + …
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if got := rows(); len(got) != 7 {
		t.Fatalf("all jobs: %v", got)
	}
	screenshot(t, ctx, "alljobs-01-all-1280")

	// Type: the list narrows as the user types, without a page load.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 11")); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "type pay", chromedp.SendKeys(chromedp.ID("all-jobs-q"), "payments"))
	waitRows("search payments", 3)
	waitDo(t, ctx, "type more", chromedp.SendKeys(chromedp.ID("all-jobs-q"), " refunds"))
	waitRows("search payments refunds", 1)
	if got := rows(); got[0] != "refund-sync" {
		t.Errorf("search payments refunds: %v", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 11 {
		t.Error("typing in the search box reloaded the page")
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("location.search")); loc != "?q=payments+refunds" {
		t.Errorf("the URL does not follow the search: %q", loc)
	}
	// The collection name matches too; then a state filter and an order.
	set("all-jobs-q", "", "input")
	waitDo(t, ctx, "type prod/ops", chromedp.SendKeys(chromedp.ID("all-jobs-q"), "prod/ops"))
	waitRows("search prod/ops", 3)
	set("all-jobs-sort", "name", "change")
	waitRows("sorted", 3)
	if got := strings.Join(rows(), ","); got != "cache-warmup,log-rotate,nightly-backup" {
		t.Errorf("prod/ops by name: %s", got)
	}
	set("all-jobs-q", "", "input")
	waitRows("cleared", 7)
	set("all-jobs-state", "disabled", "change")
	waitRows("disabled", 1)
	if got := rows(); got[0] != "tax-export" {
		t.Errorf("disabled: %v", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 11 {
		t.Error("filtering reloaded the page")
	}
	// The URL is shareable: opening it shows the same filter.
	loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("location.href"))
	waitDo(t, ctx, "shared", chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	if got := rows(); len(got) != 1 || got[0] != "tax-export" {
		t.Errorf("shared URL %s: %v", loc, got)
	}
	waitDo(t, ctx, "search billing", chromedp.Navigate(base+"/jobs?q=billing"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	screenshot(t, ctx, "alljobs-02-search-1280")

	// A phone: cards, no sideways scrolling.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "375", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	noSidewaysScroll(t, ctx, "/jobs at 375 px")
	screenshot(t, ctx, "alljobs-03-all-375")
	waitDo(t, ctx, "375 search", chromedp.SendKeys(chromedp.ID("all-jobs-q"), "backup"))
	waitRows("375 search backup", 1)
	noSidewaysScroll(t, ctx, "/jobs?q=backup at 375 px")
	screenshot(t, ctx, "alljobs-04-search-375")
	if e := errs(); len(e) > 0 {
		t.Errorf("%d console errors:\n%s", len(e), strings.Join(e, "\n"))
	}
}
