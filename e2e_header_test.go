package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
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

// TestBrowserHeaderMenu checks the header at 1280 and 375 px, with no
// console error: the primary links in one row with the logo, the rest
// behind "More", which opens and closes by keyboard (Escape gives the
// focus back to its button); the current page marked; on a phone every
// page in the menu, which fits the screen; and the header in dark mode.
func TestBrowserHeaderMenu(t *testing.T) {
	dataDir := newDataDir(t)
	base, _ := startSked(t, dataDir)
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)

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
	visible := func(id string) bool {
		t.Helper()
		return eval(`(() => { const e = document.getElementById("` + id + `"); return !!e && e.checkVisibility() })()`)
	}

	// At 1280 px: the primary links in a row with the logo, the rest
	// behind "More", which opens and closes by keyboard.
	waitDo(t, ctx, "dashboard", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("nav-more-button")))
	for _, id := range []string{"nav-all-jobs", "nav-running", "nav-calendars", "nav-month", "nav-channels", "current-user"} {
		if !visible(id) {
			t.Errorf("#%s is not visible at 1280 px", id)
		}
	}
	if visible("nav-workspaces") {
		t.Error("the More menu is open before it is asked for")
	}
	if !eval(`(() => { const h = document.querySelector("header nav"); return h.getBoundingClientRect().height < 64 })()`) {
		t.Errorf("the header wraps at 1280 px: %s", text("header nav"))
	}
	waitDo(t, ctx, "More by keyboard", chromedp.Focus(chromedp.ID("nav-more-button")), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.ID("nav-audit")))
	if got := text("#nav-more-links"); got != "Monitors Import/export Audit log Targets Workspaces API tokens Users" {
		t.Errorf("More menu at 1280 px: %q", got)
	}
	screenshot(t, ctx, "header-01-more-1280")
	waitDo(t, ctx, "Escape", chromedp.KeyEvent("\x1b"))
	if visible("nav-audit") || !eval(`document.activeElement.id === "nav-more-button"`) {
		t.Error("Escape did not close the More menu and give the focus back to its button")
	}
	waitDo(t, ctx, "audit", chromedp.Click(chromedp.ID("nav-more-button")), chromedp.Click(chromedp.ID("nav-audit")),
		chromedp.WaitVisible(chromedp.ID("audit-results")))
	if !eval(`document.querySelector("#nav-audit").getAttribute("aria-current") === "page" && document.querySelectorAll("header [aria-current=page]").length === 1`) {
		t.Error("the audit page is not the one current page of the header")
	}
	screenshot(t, ctx, "header-02-audit-current-1280")

	// A phone: the header keeps to one row, the menu holds every page.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "375 dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("nav-more-button")))
	noSidewaysScroll(t, ctx, "dashboard at 375 px")
	if visible("nav-all-jobs") || visible("current-user") {
		t.Error("the header shows the wide screen's links at 375 px")
	}
	waitDo(t, ctx, "menu 375", chromedp.Click(chromedp.ID("nav-more-button")), chromedp.WaitVisible(chromedp.ID("nav-workspaces")))
	if got := text("#nav-more-links"); got != "All jobs Running now Calendars Month view Channels Monitors Import/export Audit log Targets Workspaces API tokens Users Your account (admin) Sign out" {
		t.Errorf("menu at 375 px: %q", got)
	}
	if !eval(`(() => { const r = document.getElementById("nav-more-links").getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth })()`) {
		t.Error("the open menu does not fit 375 px")
	}
	noSidewaysScroll(t, ctx, "the open menu at 375 px")
	screenshot(t, ctx, "header-03-menu-375")

	// Dark mode.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "dark more", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("nav-more-button")),
		chromedp.Click(chromedp.ID("nav-more-button")), chromedp.WaitVisible(chromedp.ID("nav-audit")))
	screenshot(t, ctx, "header-04-more-dark-1280")

	if e := errs(); len(e) > 0 {
		t.Errorf("%d console errors:\n%s", len(e), strings.Join(e, "\n"))
	}
}
