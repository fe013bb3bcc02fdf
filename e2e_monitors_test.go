package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserMonitors creates a heartbeat monitor through its form, reads
// its ping URL on its page, pings it with an HTTP client (a success, then
// a fail with a message), and sees both pings on the page; the pages fit
// a phone's width.
func TestBrowserMonitors(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)

	waitDo(t, ctx, "create a monitor",
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.ID("nav-more-button")),
		chromedp.Click(chromedp.ID("nav-monitors")),
		chromedp.WaitVisible(chromedp.ID("monitor-new-link")),
		chromedp.Click(chromedp.ID("monitor-new-link")),
		chromedp.WaitVisible(chromedp.ID("monitor-form")),
		chromedp.SendKeys(chromedp.ID("name"), "nightly-backup"),
		setField("frequency", "day"),
		chromedp.SendKeys(chromedp.ID("hours"), "2"),
		chromedp.SendKeys(chromedp.ID("minutes"), "30"),
		chromedp.SendKeys(chromedp.ID("timeZone"), "Europe/Berlin"),
		chromedp.SendKeys(chromedp.ID("description"), "The backup crontab on db1"),
		chromedp.Click(chromedp.ID("monitor-save")),
		chromedp.WaitVisible(chromedp.ID("monitor-ping-url")),
	)
	pingURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("monitor-ping-url").value`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pingURL, base+"/ping/hb_") {
		t.Fatalf("ping URL %q", pingURL)
	}
	schedule, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("monitor-schedule").textContent`))
	if err != nil || !strings.Contains(schedule, "02:30") {
		t.Errorf("schedule %q (%v)", schedule, err)
	}

	// The work pings: a success, then a failure with a message.
	for _, p := range []struct{ url, body string }{{pingURL, ""}, {pingURL + "/fail", "disk full on /var"}} {
		resp, err := http.Post(p.url, "text/plain", strings.NewReader(p.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ping %s: %d", p.url, resp.StatusCode)
		}
	}
	waitDo(t, ctx, "see the pings", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("monitor-pings")))
	pings, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("monitor-pings").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pings, "Success") || !strings.Contains(pings, "Fail") || !strings.Contains(pings, "disk full on /var") {
		t.Errorf("pings on the page: %q", pings)
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("monitor-status").textContent`))
	if err != nil || !strings.Contains(status, "Down") {
		t.Errorf("status after a fail ping %q (%v)", status, err)
	}
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#monitor-timeline circle").length`))
	if err != nil || marks != 2 {
		t.Errorf("timeline marks %d (%v)", marks, err)
	}
	screenshot(t, ctx, "monitor-page")

	// The list shows it with its state; both pages fit a phone.
	waitDo(t, ctx, "the list", chromedp.Navigate(base+"/w/default/monitors"), chromedp.WaitVisible(chromedp.ID("monitor-list")))
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-monitor="nightly-backup"]').textContent`))
	if err != nil || !strings.Contains(row, "Down") || !strings.Contains(row, "/ping/hb_") {
		t.Errorf("list row %q (%v)", row, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(phoneWidth, 800)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "the list on a phone", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("monitor-list")))
	noSidewaysScroll(t, ctx, "the monitors page")
	screenshot(t, ctx, "monitors-phone")
	waitDo(t, ctx, "the monitor on a phone", chromedp.Navigate(base+"/w/default/monitors/nightly-backup"), chromedp.WaitVisible(chromedp.ID("monitor-pings")))
	noSidewaysScroll(t, ctx, "the monitor page")
	screenshot(t, ctx, "monitor-phone")
}
