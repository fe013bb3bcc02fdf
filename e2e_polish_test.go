package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserHeaderNoteTimelineAndPages walks what the fleet UI added, at
// 1280 and 375 px, with no console error: the header (primary links,
// the "More" menu by keyboard, the current page marked, a phone's menu);
// two runs started in the same second drawn as two dots on the timeline;
// a paused job's note changed from its page (refused in place when too
// long); the bulk delete's question and result and the audit log on a
// phone; and the dark mode of the job page.
func TestBrowserHeaderNoteTimelineAndPages(t *testing.T) {
	target := failOnFailTarget(t)
	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	errs := consoleErrors(ctx)
	setupAndSignIn(t, ctx, base)
	token := adminToken(t, dataDir, "e2e-polish")
	const v = "?api-version=2016-03-01"
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	job := func(name, path string) {
		body := `{"properties":{"startTime":"2026-01-01T00:00:00","action":{"type":"http","request":{"uri":"` + target.URL + path +
			`","method":"POST"},"retryPolicy":{"retryType":"none"}},"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[3],"minutes":[15]},"timeZone":"Europe/Berlin"}}}`
		apiCall(t, http.MethodPut, base+arm+"/jobs/"+name+v, token, body, http.StatusCreated)
	}
	for _, name := range []string{"twice-0", "twice-1", "twice-2", "report", "cleanup", "old-export"} {
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
	visible := func(id string) bool {
		t.Helper()
		return eval(`(() => { const e = document.getElementById("` + id + `"); return !!e && e.checkVisibility() })()`)
	}

	// The header at 1280 px: the primary links in a row with the logo,
	// the rest behind "More", which opens and closes by keyboard.
	waitDo(t, ctx, "dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("nav-more-button")))
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
	if got := text("#nav-more-links"); got != "Import/export Audit log Workspaces API tokens Users" {
		t.Errorf("More menu at 1280 px: %q", got)
	}
	screenshot(t, ctx, "ui16-01-header-more-1280")
	waitDo(t, ctx, "Escape", chromedp.KeyEvent("\x1b"))
	if visible("nav-audit") || !eval(`document.activeElement.id === "nav-more-button"`) {
		t.Error("Escape did not close the More menu and give the focus back to its button")
	}
	waitDo(t, ctx, "audit", chromedp.Click(chromedp.ID("nav-more-button")), chromedp.Click(chromedp.ID("nav-audit")),
		chromedp.WaitVisible(chromedp.ID("audit-results")))
	if !eval(`document.querySelector("#nav-audit").getAttribute("aria-current") === "page" && document.querySelectorAll("header [aria-current=page]").length === 1`) {
		t.Error("the audit page is not the one current page of the header")
	}
	screenshot(t, ctx, "ui16-02-audit-1280")

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
	screenshot(t, ctx, "ui16-03-timeline-same-second-1280")

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
	screenshot(t, ctx, "ui16-04-note-refused-1280")
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
	screenshot(t, ctx, "ui16-05-job-trends-note-1280")
	// The note shows in the list of every job too.
	waitDo(t, ctx, "all jobs", chromedp.Navigate(base+"/jobs?q=flaky"), chromedp.WaitVisible(chromedp.ID("all-jobs-results")))
	if got := text(`tr[data-job="flaky"] .state-note`); !strings.Contains(got, "back on Monday") {
		t.Errorf("All jobs note %q", got)
	}

	// A phone: the header keeps to one row, the menu holds every page.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "375 job", chromedp.Navigate(base+flaky), chromedp.WaitVisible(chromedp.ID("job-note-form")))
	noSidewaysScroll(t, ctx, "job page at 375 px")
	if visible("nav-all-jobs") || visible("current-user") {
		t.Error("the header shows the wide screen's links at 375 px")
	}
	screenshot(t, ctx, "ui16-06-job-trends-note-375")
	waitDo(t, ctx, "menu 375", chromedp.Click(chromedp.ID("nav-more-button")), chromedp.WaitVisible(chromedp.ID("nav-workspaces")))
	if got := text("#nav-more-links"); got != "All jobs Running now Calendars Month view Channels Import/export Audit log Workspaces API tokens Users Your account (admin) Sign out" {
		t.Errorf("menu at 375 px: %q", got)
	}
	if !eval(`(() => { const r = document.getElementById("nav-more-links").getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth })()`) {
		t.Error("the open menu does not fit 375 px")
	}
	noSidewaysScroll(t, ctx, "the open menu at 375 px")
	screenshot(t, ctx, "ui16-07-menu-375")

	// The bulk delete's question and its result on a phone.
	waitDo(t, ctx, "375 all jobs", chromedp.Navigate(base+"/jobs?q=old-export"), chromedp.WaitVisible(chromedp.CSS(`tr[data-job="old-export"]`)))
	waitDo(t, ctx, "375 delete", chromedp.Click(chromedp.CSS(`tr[data-job="old-export"] input[name="id"]`)),
		chromedp.Click(chromedp.ID("bulk-delete")), chromedp.WaitVisible(chromedp.ID("bulk-confirm-title")))
	noSidewaysScroll(t, ctx, "bulk confirm at 375 px")
	screenshot(t, ctx, "ui16-08-bulk-confirm-375")
	waitDo(t, ctx, "375 deleted", chromedp.Click(chromedp.ID("bulk-confirm-delete")), chromedp.WaitVisible(chromedp.ID("flash")))
	if got := text("#flash"); got != "1 deleted." {
		t.Errorf("flash %q", got)
	}
	noSidewaysScroll(t, ctx, "bulk result at 375 px")
	screenshot(t, ctx, "ui16-09-bulk-result-375")
	waitDo(t, ctx, "375 audit", chromedp.Navigate(base+"/w/default/audit"), chromedp.WaitVisible(chromedp.ID("audit-results")))
	noSidewaysScroll(t, ctx, "audit at 375 px")
	screenshot(t, ctx, "ui16-10-audit-375")

	// Dark mode: the job page with its note and trends.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "dark job", chromedp.Navigate(base+flaky), chromedp.WaitVisible(chromedp.ID("job-note-form")))
	screenshot(t, ctx, "ui16-11-job-dark-1280")
	waitDo(t, ctx, "dark more", chromedp.Click(chromedp.ID("nav-more-button")), chromedp.WaitVisible(chromedp.ID("nav-audit")))
	screenshot(t, ctx, "ui16-12-header-dark-1280")

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
