package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTargets opens the Targets page from the navigation's More
// menu, sets a limit through its form (htmx swaps the panel: the table
// lists the host with its limits and nothing waiting), then removes it
// after the confirmation.
func TestBrowserTargets(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	dialogs := acceptDialogs(ctx)
	waitDo(t, ctx, "open Targets from the menu",
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.ID("nav-more-button")),
		chromedp.Click(chromedp.ID("nav-targets")),
		chromedp.WaitVisible(chromedp.ID("targets-empty")))
	waitDo(t, ctx, "set a limit",
		chromedp.SendKeys(chromedp.ID("host"), "Api.Example.com:8443"),
		chromedp.SendKeys(chromedp.ID("maxConcurrent"), "10"),
		chromedp.SendKeys(chromedp.ID("maxPerSecond"), "50"),
		chromedp.Click(chromedp.ID("target-save")),
		chromedp.WaitVisible(chromedp.ID("target-table")))
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("#target-table .target-row td")).map(function(td){return td.textContent.trim()}).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(row, "api.example.com:8443|10|50|0|0|—") {
		t.Errorf("the table's row reads %q", row)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("targets-message")))
	if err != nil || !strings.Contains(msg, "api.example.com:8443 added") {
		t.Errorf("message %q (%v)", msg, err)
	}
	screenshot(t, ctx, "targets")
	noSidewaysScroll(t, ctx, "the Targets page")
	waitDo(t, ctx, "remove the limit",
		chromedp.Click(`#target-table button[type=submit]`),
		chromedp.WaitVisible(chromedp.ID("targets-empty")))
	if d := dialogs(); len(d) != 1 || !strings.Contains(d[0], "api.example.com:8443") {
		t.Errorf("confirmations: %q", d)
	}
}
