package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// nextMondays returns the first n Mondays after the day of now.
func nextMondays(now time.Time, n int) []time.Time {
	d := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()).AddDate(0, 0, 1)
	var out []time.Time
	for len(out) < n {
		if d.Weekday() == time.Monday {
			out = append(out, d)
		}
		d = d.AddDate(0, 0, 1)
	}
	return out
}

// holidaysICS is an iCalendar file with an all-day holiday on each day.
func holidaysICS(days []time.Time, labels []string) string {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//sked test//EN\r\nX-WR-CALNAME:Holidays\r\nX-WR-TIMEZONE:Europe/Berlin\r\n")
	for i, d := range days {
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:h%d@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:%s\r\nDTSTART;VALUE=DATE:%s\r\nDTEND;VALUE=DATE:%s\r\nEND:VEVENT\r\n",
			i, labels[i], d.Format("20060102"), d.AddDate(0, 0, 1).Format("20060102"))
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.String()
}

// setField sets a field's value and fires its change event, as a user's
// choice does.
func setField(id, v string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(function(){var e=document.getElementById("`+id+`");e.value="`+v+
			`";e.dispatchEvent(new Event("change",{bubbles:true}));return true})()`)(ctx, t)
		return err
	})
}

// TestBrowserCalendars imports an .ics file of three holidays (the next
// three Mondays) as the calendar "holidays", attaches it with "next day"
// to a job that runs every Monday at 09:00 in Berlin, sees the preview
// move those runs to the Tuesdays with the reason, saves, and sees the
// days shaded in the month view with the moved runs counted.
func TestBrowserCalendars(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	berlin := berlinZone(t)
	mondays := nextMondays(time.Now().In(berlin), 3)
	labels := []string{"Founders Day", "Harbour Festival", "Lantern Day"}
	file := filepath.Join(t.TempDir(), "holidays.ics")
	if err := os.WriteFile(file, []byte(holidaysICS(mondays, labels)), 0o644); err != nil {
		t.Fatal(err)
	}

	// Import: upload, dry run, import.
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/w/default/calendars"),
		chromedp.Click(chromedp.ID("calendar-import-link")),
		chromedp.WaitVisible(chromedp.ID("ics-upload")),
		chromedp.SendKeys(chromedp.ID("name"), "holidays"),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{file}),
		chromedp.Click(chromedp.ID("ics-dry-run")),
		chromedp.WaitVisible(chromedp.ID("ics-report")),
	)
	if err != nil {
		t.Fatal(err)
	}
	added, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#ics-report-table tr[data-result="add"]').length`))
	if err != nil || added != 3 {
		t.Fatalf("the dry run adds %d entries (%v), want 3", added, err)
	}
	screenshot(t, ctx, "30-calendar-import-dry-run")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("ics-import")),
		chromedp.WaitVisible(chromedp.ID("ics-open-calendar")),
		chromedp.Click(chromedp.ID("ics-open-calendar")),
		chromedp.WaitVisible(chromedp.ID("year-view")),
	)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range mondays {
		if d.Year() != time.Now().In(berlin).Year() {
			continue // shown on next year's page
		}
		title, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`(document.querySelector('[data-date="`+d.Format("2006-01-02")+`"][data-excluded="true"]') || {}).title || ""`))
		if err != nil || title != labels[i] {
			t.Errorf("%s is not shaded as %s in the year view (%q, %v)", d.Format("2006-01-02"), labels[i], title, err)
		}
	}
	screenshot(t, ctx, "31-calendar-year-view")

	// A collection and a job that runs every Monday at 09:00, moved to the
	// next day on holidays.
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/collections/new"),
		chromedp.WaitVisible(chromedp.ID("collection-form")),
		chromedp.SendKeys(chromedp.ID("collection_name"), "ops"),
		chromedp.SetValue(chromedp.ID("resource_group"), "prod"),
		chromedp.Click(chromedp.ID("create-collection")),
		chromedp.WaitNotPresent(chromedp.ID("collection-form")),
		chromedp.Navigate(base+"/c/default/prod/ops/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
		chromedp.SendKeys(chromedp.ID("name"), "weekly-report"),
		chromedp.SendKeys(chromedp.ID("uri"), "https://example.com/report"),
		setField("start_time", time.Now().In(berlin).Format("2006-01-02")+"T00:00"),
		chromedp.SendKeys(chromedp.ID("time_zone"), "Europe/Berlin"),
		setField("frequency", "week"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="week_days"][value="monday"]`)),
		chromedp.Click(chromedp.CSS(`input[name="week_days"][value="monday"]`)),
		chromedp.Click(chromedp.CSS(`input[name="hours"][value="9"]`)),
		chromedp.Click(chromedp.CSS(`input[name="minutes"][value="0"]`)),
		chromedp.Click(chromedp.CSS(`input[name="exclude_calendars"][value="holidays"]`)),
		setField("on_excluded", "nextDay"),
	)
	if err != nil {
		t.Fatal(err)
	}
	moved := time.Date(mondays[0].Year(), mondays[0].Month(), mondays[0].Day()+1, 9, 0, 0, 0, berlin).Format(time.RFC3339)
	err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview"] time[datetime="`+moved+`"]`)))
	if err != nil {
		t.Fatalf("the preview never showed the run moved to %s: %v", moved, err)
	}
	warnings, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("preview-warnings")))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		if !strings.Contains(warnings, l) {
			t.Errorf("the preview does not give %s as a reason:\n%s", l, warnings)
		}
	}
	if !strings.Contains(warnings, "instead") {
		t.Errorf("the preview does not say where the runs moved:\n%s", warnings)
	}
	times, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="preview"] time')).map(e => e.getAttribute("datetime"))`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range mondays {
		if slicesContains(times, time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, berlin).Format(time.RFC3339)) {
			t.Errorf("the preview still runs on the holiday %s", d.Format("2006-01-02"))
		}
	}
	screenshot(t, ctx, "32-job-form-calendar-preview")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("tab-json")), chromedp.WaitVisible(chromedp.ID("json")))
	if err != nil {
		t.Fatal(err)
	}
	jsonText, _ := chromedp.Run(ctx, chromedp.Value(chromedp.ID("json")))
	if !strings.Contains(jsonText, `"onExcluded": "nextDay"`) || !strings.Contains(jsonText, `"holidays"`) {
		t.Errorf("JSON tab lacks recurrence.calendars:\n%s", jsonText)
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-job")), chromedp.WaitNotPresent(chromedp.ID("job-form")))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "33-job-saved")

	// The month view of the first holiday: shaded, no run on it, the moved
	// run on the Tuesday.
	first := mondays[0]
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/w/default/month?m="+first.Format("2006-01")+"&tz=Europe/Berlin"),
		chromedp.WaitVisible(chromedp.ID("month-grid")),
	)
	if err != nil {
		t.Fatal(err)
	}
	cell := func(d time.Time) (string, string) {
		sel := `document.querySelector('#month-grid a[data-date="` + d.Format("2006-01-02") + `"]')`
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){var e=`+sel+`;return e ? [e.dataset.runs, e.dataset.excluded || ""] : ["", ""]})()`))
		if err != nil || len(v) != 2 {
			t.Fatalf("month cell %s: %v", d.Format("2006-01-02"), err)
		}
		return v[0], v[1]
	}
	for _, d := range mondays {
		if d.Month() != first.Month() {
			continue
		}
		runs, excluded := cell(d)
		if runs != "0" || excluded != "true" {
			t.Errorf("%s: %s runs, excluded %q; want 0 runs on a shaded day", d.Format("2006-01-02"), runs, excluded)
		}
		if tue := d.AddDate(0, 0, 1); tue.Month() == first.Month() {
			if runs, excluded := cell(tue); runs != "1" || excluded != "" {
				t.Errorf("%s: %s runs (excluded %q), want the moved run", tue.Format("2006-01-02"), runs, excluded)
			}
		}
	}
	screenshot(t, ctx, "34-month-view")
	// The moved run's day, in its own month's grid when the holiday is the
	// last day of a month.
	tue := first.AddDate(0, 0, 1)
	if tue.Month() != first.Month() {
		err = chromedp.Do(ctx,
			chromedp.Navigate(base+"/w/default/month?m="+tue.Format("2006-01")+"&tz=Europe/Berlin"),
			chromedp.WaitVisible(chromedp.ID("month-grid")),
		)
		if err != nil {
			t.Fatal(err)
		}
		if runs, excluded := cell(tue); runs != "1" || excluded != "" {
			t.Errorf("%s: %s runs (excluded %q), want the moved run", tue.Format("2006-01-02"), runs, excluded)
		}
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#month-grid a[data-date="`+tue.Format("2006-01-02")+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#month-day #hour-heat`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("day-runs")))
	if err != nil || !strings.Contains(runs, "09:00:00") || !strings.Contains(runs, "prod/ops/weekly-report") {
		t.Errorf("the day's runs: %q (%v)", runs, err)
	}
	screenshot(t, ctx, "35-month-view-day")

	// The list names the job; a bad edit is refused in place.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("nav-calendars")),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-calendar="holidays"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr[data-calendar="holidays"]`)))
	if !strings.Contains(row, "prod/ops/weekly-report") || !strings.Contains(row, labels[0]) {
		t.Errorf("list row %q", row)
	}
	screenshot(t, ctx, "36-calendars-list")
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/w/default/calendars/holidays/edit"),
		chromedp.WaitVisible(chromedp.ID("calendar-form")),
		chromedp.SetValue(chromedp.ID("entries"), `[{"date":"2026-12-24"},{"from":"2027-05-02","to":"2027-05-01"}]`),
		chromedp.Click(chromedp.ID("calendar-save")),
		chromedp.WaitVisible(chromedp.ID("entries-problems")),
	)
	if err != nil {
		t.Fatal(err)
	}
	problems, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("entries-problems")))
	if !strings.Contains(problems, "entries[1].to") {
		t.Errorf("problems %q", problems)
	}
	screenshot(t, ctx, "37-calendar-edit-refused")
}

// slicesContains reports whether list holds s.
func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
