package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// nextLastFriday returns the next "last Friday of the month at 05:15"
// in Berlin after now.
func nextLastFriday(t *testing.T, now time.Time) time.Time {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for m := 0; m < 3; m++ {
		first := time.Date(now.In(berlin).Year(), now.In(berlin).Month()+time.Month(m), 1, 0, 0, 0, 0, berlin)
		last := first.AddDate(0, 1, -1)
		for last.Weekday() != time.Friday {
			last = last.AddDate(0, 0, -1)
		}
		at := time.Date(last.Year(), last.Month(), last.Day(), 5, 15, 0, 0, berlin)
		if at.After(now) {
			return at
		}
	}
	t.Fatal("no last Friday within three months")
	return time.Time{}
}

// TestBrowserJobBuilder builds "last Friday of every month at 05:15,
// Europe/Berlin" with the builder, sees the preview follow WITHOUT
// submitting, switches to the JSON tab and back, and saves.
func TestBrowserJobBuilder(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/collections/new"),
		chromedp.WaitVisible(chromedp.ID("collection-form")),
		chromedp.SendKeys(chromedp.ID("collection_name"), "finance"),
		chromedp.SetValue(chromedp.ID("resource_group"), "prod"),
		chromedp.Click(chromedp.ID("create-collection")),
		chromedp.WaitNotPresent(chromedp.ID("collection-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "10-collection-created")

	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/c/default/prod/finance/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "11-job-form-new")
	// The JSON tab opens on the blank form (no name typed yet).
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("tab-json")),
		chromedp.WaitVisible(chromedp.ID("json")),
		chromedp.Navigate(base+"/c/default/prod/finance/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
	)
	if err != nil {
		t.Fatalf("the JSON tab of the blank form: %v", err)
	}
	// Only the relevant fields show: no error action fields while it is
	// not wanted, the end's field only for its kind of end.
	visible := func(id string) bool {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("`+id+`").getClientRects().length > 0`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// shown waits up to 2 s for the three fields to show as want says
	// (a click's handler runs after the click returns; a loaded machine
	// may take a while), then reports whether they do.
	shown := func(errorURI, count, endTime bool) bool {
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			ok := visible("error_uri") == errorURI && visible("count") == count && visible("end_time") == endTime
			if ok || time.Now().After(deadline) {
				return ok
			}
		}
	}
	if !shown(false, false, false) {
		t.Errorf("hidden fields show: error_uri %v, count %v, end_time %v", visible("error_uri"), visible("count"), visible("end_time"))
	}
	// setChecked clicks an input until it is checked as wanted: the
	// preview's refresh after the first click may move the page under a
	// second click that was aimed before it, so a click is confirmed, not
	// assumed.
	setChecked := func(sel string, want bool) {
		t.Helper()
		for try := 0; ; try++ {
			checked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('`+sel+`').checked`))
			if err != nil {
				t.Fatal(err)
			}
			if checked == want {
				return
			}
			if try == 5 {
				t.Fatalf("%s: still checked=%v after %d clicks", sel, checked, try)
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	setChecked("#error_action", true)
	setChecked(`input[name="end"][value="count"]`, true)
	if !shown(true, true, false) {
		t.Errorf("after choosing: error_uri %v, count %v, end_time %v", visible("error_uri"), visible("count"), visible("end_time"))
	}
	setChecked("#error_action", false)
	setChecked(`input[name="end"][value="never"]`, true)
	if !shown(false, false, false) {
		t.Errorf("after unchoosing: error_uri %v, count %v, end_time %v", visible("error_uri"), visible("count"), visible("end_time"))
	}
	// The minute chips: a shortcut checks every 15th minute; a chip
	// toggles by keyboard (Space on its focused checkbox).
	checkedMinutes := func() []string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('input[name="minutes"]:checked')).map(e => e.value)`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-pick-name="minutes"][data-pick-step="15"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(checkedMinutes(), ","); got != "0,15,30,45" {
		t.Errorf("every 15 minutes checked %q", got)
	}
	err = chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`input[name="minutes"][value="7"]`)),
		chromedp.KeyEvent(" "),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(checkedMinutes(), ","); got != "0,7,15,30,45" {
		t.Errorf("Space on minute 7: checked %q", got)
	}
	screenshot(t, ctx, "11b-job-form-chips")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-pick-name="minutes"][data-pick-step="0"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := checkedMinutes(); len(got) != 0 {
		t.Errorf("clear left %v", got)
	}
	// A marker on the page survives only if nothing reloads it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 7")); err != nil {
		t.Fatal(err)
	}
	selectValue := func(id, v string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`(function(){var e=document.getElementById("`+id+`");e.value="`+v+
				`";e.dispatchEvent(new Event("change",{bubbles:true}));return true})()`)(ctx, t)
			return err
		})
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("name"), "month-end"),
		chromedp.SendKeys(chromedp.ID("uri"), "https://example.com/month-end"),
		selectValue("method", "POST"),
		// A start in the past: the schedule's first occurrence from now on
		// (without a start time the job would also run once right away).
		selectValue("start_time", time.Now().In(berlinZone(t)).Format("2006-01-02")+"T00:00"),
		chromedp.SendKeys(chromedp.ID("time_zone"), "Europe/Berlin"),
		selectValue("frequency", "month"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="occurrences"][value="-1:friday"]`)),
		chromedp.Click(chromedp.CSS(`input[name="minutes"][value="15"]`)),
		chromedp.Click(chromedp.CSS(`input[name="hours"][value="5"]`)),
		chromedp.Click(chromedp.CSS(`input[name="occurrences"][value="-1:friday"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := nextLastFriday(t, time.Now()).Format(time.RFC3339)
	err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview"] time[datetime="`+want+`"]`)))
	if err != nil {
		t.Fatalf("the preview never showed %s: %v", want, err)
	}
	times, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="preview"] time')).map(e => e.getAttribute("datetime"))`))
	if err != nil || len(times) != 10 || times[0] != want {
		t.Fatalf("preview times %v (%v), want 10 starting %s", times, err, want)
	}
	for _, ts := range times {
		at, _ := time.Parse(time.RFC3339, ts)
		berlin, _ := time.LoadLocation("Europe/Berlin")
		local := at.In(berlin)
		if local.Weekday() != time.Friday || local.AddDate(0, 0, 7).Month() == local.Month() || local.Hour() != 5 || local.Minute() != 15 {
			t.Errorf("%s is not a last Friday at 05:15 in Berlin", ts)
		}
	}
	desc, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("preview-description")))
	if !strings.Contains(strings.ToLower(desc), "last friday") {
		t.Errorf("description %q", desc)
	}
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); err != nil || marker != 7 {
		t.Fatalf("the page reloaded while the preview updated (marker %d, %v)", marker, err)
	}
	screenshot(t, ctx, "12-job-form-preview")

	// The JSON tab shows the same job; back in the builder nothing is lost.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("tab-json")), chromedp.WaitVisible(chromedp.ID("json")))
	if err != nil {
		t.Fatal(err)
	}
	js, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("json")))
	if err != nil || !strings.Contains(js, `"monthlyOccurrences"`) || !strings.Contains(js, `"Europe/Berlin"`) {
		t.Fatalf("JSON tab %q (%v)", js, err)
	}
	screenshot(t, ctx, "13-job-form-json")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("tab-form")), chromedp.WaitVisible(chromedp.ID("uri")))
	if err != nil {
		t.Fatal(err)
	}
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('input[name="occurrences"][value="-1:friday"]').checked`))
	if err != nil || !checked {
		t.Fatalf("last Friday lost in the round trip (%v)", err)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); marker != 7 {
		t.Fatal("switching tabs reloaded the page")
	}

	// Narrow screens: no horizontal scrolling.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 800)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil || wide {
		t.Errorf("the job form scrolls sideways at 375 px (%v)", err)
	}
	// The compact preview follows the schedule, before Save.
	compactFirst, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){
		var c = document.getElementById("preview-compact"), s = document.getElementById("save-job");
		return c.offsetHeight > 0 && c.getBoundingClientRect().top < s.getBoundingClientRect().top &&
			/last friday/i.test(c.textContent)})()`))
	if err != nil || !compactFirst {
		t.Errorf("no compact preview before Save at 375 px (%v)", err)
	}
	screenshot(t, ctx, "14-job-form-375")
	if err := chromedp.Do(ctx, chromedp.EmulateReset()); err != nil {
		t.Fatal(err)
	}

	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-job")), chromedp.WaitNotPresent(chromedp.ID("job-form")))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || loc != base+"/c/default/prod/finance/jobs/month-end" {
		t.Fatalf("after saving at %q (%v)", loc, err)
	}
	screenshot(t, ctx, "15-job-saved")

	// Dark mode follows the system setting.
	_, err = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
	if err != nil {
		t.Fatal(err)
	}
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body.parentElement).backgroundColor`))
	if err != nil || bg == "rgb(248, 250, 252)" {
		t.Errorf("dark mode: page background %q (%v)", bg, err)
	}
	screenshot(t, ctx, "16-job-saved-dark")
}
