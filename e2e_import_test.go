package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// seedStyleJobs is a seed-style file: a flat job and one with a problem.
const seedStyleJobs = `[
  {"name": "weekday-report", "startTime": "2026-01-01T08:00:00Z",
   "action": {"type": "http", "request": {"uri": "https://example.com/report", "method": "GET"}},
   "recurrence": {"frequency": "week", "schedule": {"weekDays": ["monday", "friday"], "hours": [8], "minutes": [0]}}},
  {"name": "too-often", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
   "recurrence": {"frequency": "minute", "interval": 5000}}
]`

// TestBrowserImportExport pastes a seed-style file, checks it (dry run),
// imports the valid job and exports everything.
func TestBrowserImportExport(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/import"),
		chromedp.WaitVisible(chromedp.ID("import-form")),
		chromedp.SetValue(chromedp.ID("import_text"), seedStyleJobs),
		chromedp.Click(chromedp.ID("import-check")),
		chromedp.WaitVisible(chromedp.ID("import-report")),
	)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("import-summary")))
	if err != nil || !strings.Contains(summary, "2 jobs: 1 new") || !strings.Contains(summary, "1 invalid; 0 written") {
		t.Fatalf("dry run summary %q (%v)", summary, err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-job="weekday-report"] time[datetime]').length`))
	if err != nil || rows != 3 {
		t.Errorf("next runs of the new job: %d (%v)", rows, err)
	}
	screenshot(t, ctx, "20-import-dry-run")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("import-valid")),
		chromedp.WaitVisible(chromedp.ID("import-message")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("import-message")))
	if !strings.Contains(msg, "Imported: 1 job written") {
		t.Fatalf("import message %q", msg)
	}
	screenshot(t, ctx, "21-import-applied")
	// The export link downloads JSON holding the job.
	exported, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/export").then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(exported, "weekday-report") || !strings.Contains(exported, `"secretsOmitted": true`) {
		t.Fatalf("export %q (%v)", exported, err)
	}
}
