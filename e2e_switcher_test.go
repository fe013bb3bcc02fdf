package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserWorkspaceSwitcher creates a second workspace with a job
// beside the default one's, and switches between them with the header's
// switcher, by keyboard and by mouse: the dashboard and "All jobs" show
// the chosen workspace, "All my workspaces" both; at 1280 and 375 px, with
// no console errors.
func TestBrowserWorkspaceSwitcher(t *testing.T) {
	dataDir := newDataDir(t)
	base, _ := startSked(t, dataDir)
	ctx := newBrowser(t)
	var mu sync.Mutex
	var consoleErrors []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				consoleErrors = append(consoleErrors, m.String())
				mu.Unlock()
			}
		}
	}()
	setupAndSignIn(t, ctx, base)

	token := adminToken(t, dataDir, "e2e-switcher")
	const v = "?api-version=2016-03-01"
	apiCall(t, http.MethodPut, base+"/api/v1/workspaces/team", token, `{"displayName":"Team A"}`, http.StatusCreated)
	put := func(ws, coll, job string) {
		arm := "/subscriptions/" + ws + "/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/" + coll
		apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
		apiCall(t, http.MethodPut, base+arm+"/jobs/"+job+v, token, `{"properties":{"startTime":"2026-01-01T00:00:00",`+
			`"action":{"type":"http","request":{"uri":"https://example.com/`+job+`","method":"GET"}},"recurrence":{"frequency":"day","interval":1}}}`,
			http.StatusCreated)
	}
	put("default", "billing", "invoice-run")
	put("team", "reports", "weekly-report")

	texts := func(sel string) string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(`+"`"+sel+"`"+`)].map(e => e.textContent.trim())`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, ",")
	}
	// isOpen reports whether the switcher is open (its list stays
	// "visible" to chromedp while the details element is closed).
	isOpen := func() bool {
		t.Helper()
		open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("ws-switcher").open`))
		if err != nil {
			t.Fatal(err)
		}
		return open
	}
	at := func(want string) {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil || loc != base+want {
			t.Fatalf("at %q (%v), want %s", loc, err, want)
		}
	}

	waitDo(t, ctx, "dashboard", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("ws-switcher")))
	if got := texts("#collections tbody td:first-child"); got != "billing,reports" {
		t.Errorf("all my workspaces: collections %q", got)
	}
	screenshot(t, ctx, "switcher-01-all-1280")

	// By keyboard: focus the switcher, open it with Enter, tab to Team A
	// and follow it with Enter.
	waitDo(t, ctx, "open by keyboard",
		chromedp.Focus(chromedp.CSS("#ws-switcher summary")),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.ID("ws-choices")),
	)
	if !isOpen() {
		t.Error("Enter did not open the switcher")
	}
	screenshot(t, ctx, "switcher-02-open-1280")
	// Escape closes it, the focus back on its summary; Enter opens it again.
	waitDo(t, ctx, "close with Escape", chromedp.KeyEvent(kb.Escape))
	if isOpen() {
		t.Error("Escape did not close the switcher")
	}
	if focused, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector("#ws-switcher summary")`)); err != nil || !focused {
		t.Errorf("after Escape the focus is not on the switcher (%v)", err)
	}
	waitDo(t, ctx, "open again", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.ID("ws-choices")))
	if !isOpen() {
		t.Error("Enter did not open the switcher again")
	}
	// Tab moves through the choices: All my workspaces, Default, Team A.
	waitDo(t, ctx, "tab to Team A", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab))
	if ws, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.dataset.ws || "(not a choice)"`)); err != nil || ws != "team" {
		t.Fatalf("after three tabs the focus is on %q (%v), want Team A", ws, err)
	}
	waitDo(t, ctx, "choose Team A by keyboard", chromedp.KeyEvent(kb.Enter))
	waitDo(t, ctx, "team dashboard", chromedp.WaitVisible(chromedp.ID("ws-current-role")))
	at("/?ws=team")
	if got := texts("#ws-current") + " " + texts("#ws-current-role"); got != "Team A Owner" {
		t.Errorf("switcher shows %q", got)
	}
	if got := texts("#collections tbody td:first-child"); got != "reports" {
		t.Errorf("Team A: collections %q", got)
	}
	screenshot(t, ctx, "switcher-03-team-1280")

	// The navigation keeps the choice: All jobs of Team A.
	waitDo(t, ctx, "all jobs of Team A", chromedp.Click(chromedp.ID("nav-all-jobs")), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	at("/jobs?ws=team")
	if got := texts("#all-jobs-results tr[data-job] td:first-child"); got != "weekly-report" {
		t.Errorf("All jobs of Team A: %q", got)
	}
	// By mouse: All my workspaces, still on All jobs.
	waitDo(t, ctx, "choose all by mouse",
		chromedp.Click(chromedp.CSS("#ws-switcher summary")),
		chromedp.WaitVisible(chromedp.ID("ws-choices")),
		chromedp.Click(chromedp.CSS(`#ws-choices a[data-ws=""]`)),
		chromedp.WaitVisible(chromedp.ID("all-jobs-results")),
	)
	at("/jobs")
	if got := texts("#all-jobs-results tr[data-job] td:first-child"); got != "invoice-run,weekly-report" && got != "weekly-report,invoice-run" {
		t.Errorf("All jobs of all workspaces: %q", got)
	}
	screenshot(t, ctx, "switcher-04-alljobs-all-1280")

	// A phone: the open switcher fits the screen.
	waitDo(t, ctx, "375", chromedp.EmulateViewport(375, 800), chromedp.Navigate(base+"/?ws=default"), chromedp.WaitVisible(chromedp.ID("ws-switcher")))
	if got := texts("#collections tbody td:first-child"); got != "billing" {
		t.Errorf("Default at 375 px: collections %q", got)
	}
	waitDo(t, ctx, "open at 375", chromedp.Click(chromedp.CSS("#ws-switcher summary")), chromedp.WaitVisible(chromedp.ID("ws-choices")))
	if !isOpen() {
		t.Error("a tap did not open the switcher")
	}
	fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const r = document.getElementById("ws-choices").getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth })()`))
	if err != nil || !fits {
		t.Errorf("the open switcher does not fit 375 px (%v)", err)
	}
	noSidewaysScroll(t, ctx, "the dashboard with the switcher open at 375 px")
	screenshot(t, ctx, "switcher-05-open-375")
	waitDo(t, ctx, "choose Team A at 375", chromedp.Click(chromedp.CSS(`#ws-choices a[data-ws="team"]`)), chromedp.WaitVisible(chromedp.ID("ws-current-role")))
	at("/?ws=team")
	screenshot(t, ctx, "switcher-06-team-375")

	mu.Lock()
	defer mu.Unlock()
	if len(consoleErrors) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(consoleErrors, "\n"))
	}
}
