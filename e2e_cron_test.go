package main

import (
	"net/http"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
	"github.com/chromedp/chromedp"
)

// TestBrowserCronLineAndFeed pastes a cron line into the job builder, sees
// the builder and the preview follow without a reload, sees a refused line's
// reason under the field, saves, and finds the cron line and the calendar
// feed on the job page; the feed URL answers an iCalendar document to a
// client without a session.
func TestBrowserCronLineAndFeed(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/collections/new"),
		chromedp.WaitVisible(chromedp.ID("collection-form")),
		chromedp.SendKeys(chromedp.ID("collection_name"), "ops"),
		chromedp.SetValue(chromedp.ID("resource_group"), "prod"),
		chromedp.Click(chromedp.ID("create-collection")),
		chromedp.WaitNotPresent(chromedp.ID("collection-form")),
		chromedp.Navigate(base+"/c/default/prod/ops/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 7")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("name"), "weekday-report"),
		chromedp.SendKeys(chromedp.ID("uri"), "https://example.com/report"),
		chromedp.SendKeys(chromedp.ID("cron"), "0 0 1 * 1"),
		chromedp.Click(chromedp.ID("cron-fill")),
		chromedp.WaitVisible(chromedp.CSS(`#cron.border-red-500`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	reason, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("err-cron")))
	if !strings.Contains(reason, "day-of-month OR day-of-week") {
		t.Errorf("refused line: %q", reason)
	}
	screenshot(t, ctx, "60-cron-refused")
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("cron"), "CRON_TZ=Europe/Berlin 15 5 * * MON-FRI"),
		chromedp.Click(chromedp.ID("cron-fill")),
		chromedp.WaitVisible(chromedp.CSS(`input[name="week_days"][value="friday"][checked]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	desc, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("preview-description")))
	if !strings.Contains(desc, "Monday to Friday") || !strings.Contains(desc, "Europe/Berlin") {
		t.Errorf("preview description %q", desc)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 7 {
		t.Fatal("filling the builder reloaded the page")
	}
	screenshot(t, ctx, "61-cron-filled")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-job")), chromedp.WaitVisible(chromedp.ID("job-feed-url")))
	if err != nil {
		t.Fatal(err)
	}
	cron, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#job-cron code")))
	if cron != "15 5 * * 1-5" {
		t.Errorf("cron on the job page %q", cron)
	}
	feed, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("job-feed-url")))
	if err != nil || !strings.HasPrefix(feed, base+"/c/default/prod/ops/jobs/weekday-report/calendar.ics?token=") {
		t.Fatalf("feed URL %q (%v)", feed, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("job-feed-copy"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "62-job-page-cron-feed")

	resp, err := http.Get(feed)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("feed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cal, err := ics.ParseCalendar(resp.Body)
	if err != nil || len(cal.Events()) != 200 {
		t.Fatalf("feed: %v, %d events", err, len(cal.Events()))
	}
}
