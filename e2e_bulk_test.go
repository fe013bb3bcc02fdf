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

// TestBrowserBulkActions searches "All jobs", checks three of the jobs
// that match and disables them with a note; the note shows on each job's
// page. Then it filters "failed in the last 24 hours", selects every job
// that matches and runs them now; and asks to delete one (the question
// names it). On a phone, nothing scrolls sideways: the bulk bar, a job's
// note, the delete question and its result, and the audit log that
// records it. Screenshots at 1280 and 375 px.
func TestBrowserBulkActions(t *testing.T) {
	target := failOnFailTarget(t)
	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)

	token := adminToken(t, dataDir, "e2e-bulk")
	const v = "?api-version=2016-03-01"
	arm := "/subscriptions/default/resourceGroups/prod/providers/Microsoft.Scheduler/jobCollections/billing"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(name, path string, minute int) {
		body := `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + target.URL + path +
			`","method":"POST"},"retryPolicy":{"retryType":"none"}},"recurrence":{"frequency":"hour","interval":1,"schedule":{"minutes":[` +
			fmt.Sprint(minute) + `]},"timeZone":"Europe/Berlin"}}}`
		apiCall(t, http.MethodPut, base+arm+"/jobs/"+name+v, token, body, http.StatusCreated)
	}
	job("invoice-run", "/payments/invoices", 5)
	job("dunning-letters", "/payments/dunning", 20)
	job("payout-report", "/payments/payouts", 25)
	job("refund-sync", "/payments/refunds/fail", 35)
	job("nightly-backup", "/backup/fail", 10)
	job("log-rotate", "/logs/rotate", 0)
	apiCall(t, http.MethodPost, base+arm+"/jobs/refund-sync/run"+v, token, "", http.StatusOK)
	apiCall(t, http.MethodPost, base+arm+"/jobs/nightly-backup/run"+v, token, "", http.StatusOK)

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
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}

	// Search: the list narrows as the user types; check three of four.
	waitDo(t, ctx, "all jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.ID("all-jobs-q")))
	waitRows("all", 6)
	waitDo(t, ctx, "type payments", chromedp.SendKeys(chromedp.ID("all-jobs-q"), "payments"))
	waitRows("search payments", 4)
	for _, name := range []string{"invoice-run", "dunning-letters", "payout-report"} {
		waitDo(t, ctx, "check "+name, chromedp.Click(chromedp.CSS(`tr[data-job="`+name+`"] input[name="id"]`)))
	}
	if got := text("#all-jobs-selected"); got != "3 jobs selected, or:" {
		t.Errorf("selection line %q", got)
	}
	const note = "waiting for the vendor's maintenance"
	waitDo(t, ctx, "note", chromedp.SendKeys(chromedp.ID("bulk-note"), note))
	screenshot(t, ctx, "bulk-01-selected-1280")
	waitDo(t, ctx, "disable", chromedp.Click(chromedp.ID("bulk-disable")), chromedp.WaitVisible(chromedp.ID("flash")))
	if got := text("#flash"); got != "3 disabled." {
		t.Errorf("flash after disable %q", got)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("location.search")); loc != "?q=payments" {
		t.Errorf("back at %q, want the search kept", loc)
	}
	screenshot(t, ctx, "bulk-02-disabled-1280")

	// Each job's page says who paused it, when and why.
	for _, name := range []string{"invoice-run", "dunning-letters", "payout-report"} {
		waitDo(t, ctx, "open "+name, chromedp.Navigate(base+"/c/default/prod/billing/jobs/"+name), chromedp.WaitVisible(chromedp.ID("job-state-note")))
		if got := text("#job-state-note"); !strings.HasPrefix(got, "Paused by admin") || !strings.HasSuffix(got, ": "+note) {
			t.Errorf("%s: note %q", name, got)
		}
		if got := text("#job-state"); got != "Disabled" {
			t.Errorf("%s: state %q", name, got)
		}
	}
	screenshot(t, ctx, "bulk-03-job-note-1280")
	if got := text(`#job-state-note`); !strings.Contains(got, note) {
		t.Errorf("note %q", got)
	}

	// Filter "failed in the last 24 hours" (once the engine ran the two
	// failing jobs), select every match and run them now.
	deadline := time.Now().Add(30 * time.Second)
	for {
		waitDo(t, ctx, "failed", chromedp.Navigate(base+"/jobs?failed=24h"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
		if len(rows()) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if got := strings.Join(rows(), ","); got != "nightly-backup,refund-sync" && got != "refund-sync,nightly-backup" {
		t.Fatalf("failed in 24 h: %s", got)
	}
	waitDo(t, ctx, "select all matching", chromedp.Click(chromedp.ID("all-jobs-select-all")))
	if got := text(`label[for="all-jobs-select-all"]`); got != "All 2 jobs that match the filter" {
		t.Errorf("all matching label %q", got)
	}
	waitDo(t, ctx, "run", chromedp.Click(chromedp.ID("bulk-run")), chromedp.WaitVisible(chromedp.ID("flash")))
	if got := text("#flash"); got != "2 started." {
		t.Errorf("flash after run %q", got)
	}
	screenshot(t, ctx, "bulk-04-run-all-matching-1280")

	// Delete asks first, naming the job.
	waitDo(t, ctx, "all", chromedp.Navigate(base+"/jobs?q=log"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	waitRows("log", 1)
	waitDo(t, ctx, "check log-rotate", chromedp.Click(chromedp.CSS(`tr[data-job="log-rotate"] input[name="id"]`)),
		chromedp.Click(chromedp.ID("bulk-delete")), chromedp.WaitVisible(chromedp.ID("bulk-confirm-title")))
	if got := text("#bulk-confirm-title") + " " + text("#bulk-confirm-names"); got != "Delete 1 job? default/prod/billing/log-rotate" {
		t.Errorf("question %q", got)
	}
	screenshot(t, ctx, "bulk-05-delete-confirm-1280")
	waitDo(t, ctx, "delete", chromedp.Click(chromedp.ID("bulk-confirm-delete")), chromedp.WaitVisible(chromedp.ID("flash")))
	if got := text("#flash"); got != "1 deleted." {
		t.Errorf("flash after delete %q", got)
	}

	// A phone: the bulk bar wraps, nothing scrolls sideways.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "375", chromedp.Navigate(base+"/jobs?q=payments"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	waitRows("375 payments", 4)
	waitDo(t, ctx, "375 check", chromedp.Click(chromedp.CSS(`tr[data-job="refund-sync"] input[name="id"]`)))
	noSidewaysScroll(t, ctx, "/jobs?q=payments at 375 px")
	screenshot(t, ctx, "bulk-06-notes-375")
	waitDo(t, ctx, "375 job", chromedp.Navigate(base+"/c/default/prod/billing/jobs/invoice-run"), chromedp.WaitVisible(chromedp.ID("job-state-note")))
	noSidewaysScroll(t, ctx, "job page at 375 px")
	screenshot(t, ctx, "bulk-07-job-note-375")

	// The delete question and its result on a phone, then the audit log
	// that records the deletion.
	waitDo(t, ctx, "375 payout", chromedp.Navigate(base+"/jobs?q=payout"), chromedp.WaitVisible(chromedp.CSS(`tr[data-job="payout-report"]`)))
	waitDo(t, ctx, "375 delete", chromedp.Click(chromedp.CSS(`tr[data-job="payout-report"] input[name="id"]`)),
		chromedp.Click(chromedp.ID("bulk-delete")), chromedp.WaitVisible(chromedp.ID("bulk-confirm-title")))
	noSidewaysScroll(t, ctx, "bulk confirm at 375 px")
	screenshot(t, ctx, "bulk-08-delete-confirm-375")
	waitDo(t, ctx, "375 deleted", chromedp.Click(chromedp.ID("bulk-confirm-delete")), chromedp.WaitVisible(chromedp.ID("flash")))
	if got := text("#flash"); got != "1 deleted." {
		t.Errorf("flash after delete at 375 px %q", got)
	}
	noSidewaysScroll(t, ctx, "bulk result at 375 px")
	screenshot(t, ctx, "bulk-09-delete-result-375")
	waitDo(t, ctx, "375 audit", chromedp.Navigate(base+"/w/default/audit"), chromedp.WaitVisible(chromedp.ID("audit-results")))
	if got := text("#audit-results"); !strings.Contains(got, "payout-report") {
		t.Errorf("the audit log at 375 px does not show the deletion: %q", got)
	}
	noSidewaysScroll(t, ctx, "audit at 375 px")
	screenshot(t, ctx, "bulk-10-audit-375")
	if e := errs(); len(e) > 0 {
		t.Errorf("%d console errors:\n%s", len(e), strings.Join(e, "\n"))
	}
}
