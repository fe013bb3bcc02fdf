package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// phoneWidth is the CSS width of a small phone (an iPhone SE or mini).
const phoneWidth = 375

// pageWidth is what pageOverflow measures: the page's scroll width, the
// window's width and the elements that reach past its right edge.
type pageWidth struct {
	ScrollWidth, InnerWidth int
	Past                    []string
}

// pageOverflow measures the page of ctx: its scroll width against the
// window's, and, for a failure message, the outermost elements that
// reach past the right edge of the window (tag, id, classes, right edge)
// without a sideways-scrolling box around them.
func pageOverflow(t *testing.T, ctx context.Context) pageWidth {
	t.Helper()
	w, err := chromedp.Run(ctx, chromedp.Evaluate[pageWidth](`(() => {
		const inner = window.innerWidth, past = [];
		const scrolls = (el) => { const o = getComputedStyle(el).overflowX; return o === 'auto' || o === 'scroll' || o === 'hidden'; };
		const walk = (el) => {
			for (const c of el.children) {
				const r = c.getBoundingClientRect();
				if (r.right > inner + 1 && r.width > 0) {
					past.push(c.tagName.toLowerCase() + (c.id ? '#' + c.id : '') +
						(typeof c.className === 'string' && c.className ? '.' + c.className.trim().split(/\s+/).join('.') : '') +
						' right=' + Math.round(r.right));
					if (past.length >= 8) return;
				}
				if (!scrolls(c)) walk(c);
			}
		};
		walk(document.body);
		return {ScrollWidth: document.documentElement.scrollWidth, InnerWidth: inner, Past: past};
	})()`))
	if err != nil {
		t.Fatalf("measure the page: %v", err)
	}
	return w
}

// TestBrowserPhone loads every main page at 375 px, with names as long as
// real ones (some without a hyphen to break at), and fails when a page is
// wider than the window (the phone would scroll the whole page sideways):
// the dashboard, "All jobs", a collection, a job, its history and one
// execution, the running attempts, the calendars, the month view, the
// alerts, the notification channels and the audit log. On the dashboard
// every collection's name, state and job counts must show without
// scrolling its box sideways too (collectionsOnScreen). Each page's
// screenshot is phone-<name>.png.
func TestBrowserPhone(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/fail") {
			http.Error(w, "the accounting system is down for maintenance", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "exported: %s %s", r.Method, r.URL.Path)
	}))
	defer target.Close()

	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)

	token := adminToken(t, dataDir, "e2e-phone")
	const v = "?api-version=2016-03-01"
	const rg, coll = "production_eu_west", "nightly_finance_exports"
	arm := "/subscriptions/default/resourceGroups/" + rg + "/providers/Microsoft.Scheduler/jobCollections/"
	apiCall(t, http.MethodPut, base+arm+coll+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+"customer-notifications"+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(uri string) string {
		return `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + uri +
			`","method":"POST","body":"ping"},"retryPolicy":{"retryType":"none"}},
			"recurrence":{"frequency":"hour","interval":1,"schedule":{"minutes":[15]},"timeZone":"Europe/Berlin"}}}`
	}
	const jobName = "export-invoices-to-accounting"
	apiCall(t, http.MethodPut, base+arm+coll+"/jobs/"+jobName+v, token, job(target.URL+"/invoices/export-to-accounting-system"), http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+coll+"/jobs/reconcile_payment_provider_settlements_nightly"+v, token, job(target.URL+"/fail"), http.StatusCreated)
	apiCall(t, http.MethodPost, base+arm+coll+"/jobs/"+jobName+"/run"+v, token, "", http.StatusOK)
	apiCall(t, http.MethodPost, base+arm+coll+"/jobs/reconcile_payment_provider_settlements_nightly/run"+v, token, "", http.StatusOK)
	apiCall(t, http.MethodPut, base+"/api/v1/workspaces/default/calendars/public-holidays-germany", token,
		`{"timeZone":"Europe/Berlin","description":"Public holidays in Germany","entries":[{"date":"2027-01-01","label":"New Year's Day"}]}`, http.StatusCreated)
	apiCall(t, http.MethodPut, base+"/api/v1/workspaces/default/targets/settlements-reconciliation-provider-eu-west.payments.example.com:8443", token,
		`{"maxConcurrent":10,"maxPerSecond":50}`, http.StatusCreated)

	// Wait for the failed run on the dashboard and the other in its job's
	// history.
	jobPath := "/c/default/" + rg + "/" + coll + "/jobs/" + jobName
	deadline := time.Now().Add(30 * time.Second)
	for {
		waitDo(t, ctx, "dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#activity svg`)))
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#failures li').length`))
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	waitDo(t, ctx, "job history", chromedp.Navigate(base+jobPath+"/history"), chromedp.WaitVisible(chromedp.CSS(`#history-table tbody tr`)))
	execution, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="history-details"]').getAttribute('href')`))
	if err != nil {
		t.Fatal(err)
	}

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(phoneWidth, 800)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, ready string }{
		{"dashboard", "/", "#collections table"},
		{"all-jobs", "/jobs", "main"},
		{"collection", "/c/default/" + rg + "/" + coll, "#collection-jobs"},
		{"job", jobPath, "#job-trends"},
		{"history", jobPath + "/history", "#history-table tbody tr"},
		{"execution", execution, "main"},
		{"running", "/w/default/running", "main"},
		{"calendars-all", "/calendars", "main"},
		{"calendars", "/w/default/calendars", "main"},
		{"calendar", "/w/default/calendars/public-holidays-germany", "main"},
		{"month", "/w/default/month", "main"},
		{"alerts", "/w/default/alerts", "main"},
		{"channels", "/w/default/channels", "main"},
		{"audit", "/w/default/audit", "main"},
		{"targets", "/w/default/targets", "main"},
	} {
		waitDo(t, ctx, p.name, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		screenshot(t, ctx, "phone-"+p.name)
		if p.name == "dashboard" {
			collectionsOnScreen(t, ctx)
		}
		if w := pageOverflow(t, ctx); w.ScrollWidth > w.InnerWidth {
			t.Errorf("%s (%s) at %d px is %d px wide: the page scrolls sideways; past the edge: %s",
				p.name, p.path, w.InnerWidth, w.ScrollWidth, strings.Join(w.Past, "; "))
		}
	}
}

// collectionsOnScreen fails unless every text of the dashboard's job
// collections (names, workspaces, states, job counts, headings) shows
// inside the window without scrolling a box sideways: a phone shows them
// whole.
func collectionsOnScreen(t *testing.T, ctx context.Context) {
	t.Helper()
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const off = [];
		let shown = 0;
		for (const el of document.querySelectorAll('#collections *')) {
			if (el.children.length > 0 || el.textContent.trim() === '' || el.getClientRects().length === 0) continue;
			shown++;
			const r = el.getBoundingClientRect();
			let clipped = r.right > window.innerWidth + 1 || r.left < -1;
			for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
				const b = box.getBoundingClientRect();
				if (getComputedStyle(box).overflowX !== 'visible' && (r.right > b.right + 1 || r.left < b.left - 1)) clipped = true;
			}
			if (clipped) off.push(el.textContent.trim());
		}
		return [String(shown), ...off];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if texts[0] == "0" || len(texts) > 1 {
		t.Errorf("the dashboard's collections at %d px: %s texts shown, these off the screen: %q", phoneWidth, texts[0], texts[1:])
	}
}
