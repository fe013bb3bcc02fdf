package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestJobFormSkipDaysInCalendars checks the builder's "Skip days in
// calendars": the workspace's calendars to choose from, the choice mapped
// to recurrence.calendars in the preview and the saved job, and back into
// the builder.
func TestJobFormSkipDaysInCalendars(t *testing.T) {
	f := newPGFixture(t)
	base := f.base
	r := f.get(base + "/jobs/new")
	if msg := r.doc.Find("#calendars-field").Text(); !strings.Contains(msg, "no calendars yet") {
		t.Errorf("without calendars: %q", msg)
	}
	f.withHolidays()
	r = f.get(base + "/jobs/new")
	if r.doc.Find(`#calendars-field input[name="exclude_calendars"][value="holidays"]`).Length() != 1 || r.doc.Find("#on_excluded").Length() != 1 {
		t.Fatal("the builder offers no calendar")
	}
	csrf := f.csrf(base + "/jobs/new")
	form := lastFridayForm(csrf)
	// Every day at 09:00 in Berlin, skipping holidays.
	form.Set("frequency", "day")
	form.Set("minutes", "0")
	form.Set("hours", "9")
	form.Del("occurrences")
	form.Set("preview_n", "50")
	form.Set("exclude_calendars", "holidays")
	form.Set("on_excluded", "nextDay")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	r = f.do(f.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	warnings := strings.Join(pgTexts(r.doc.Find("#preview-warnings li")), "\n")
	if !strings.Contains(warnings, "Christmas Eve (holidays)") {
		t.Errorf("preview warnings do not name the holiday:\n%s", warnings)
	}
	if r.doc.Find(`time[datetime="2026-12-24T09:00:00+01:00"]`).Length() != 0 {
		t.Error("the preview lists a run on Christmas Eve")
	}
	// The JSON tab has recurrence.calendars.
	form.Set("switch", "json")
	r = f.do(f.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	js := r.doc.Find("#json").Text()
	if !strings.Contains(js, `"calendars"`) || !strings.Contains(js, `"onExcluded": "nextDay"`) || !strings.Contains(js, `"holidays"`) {
		t.Errorf("JSON tab:\n%s", js)
	}
	// Saved: the job's JSON has it; the edit form shows it checked.
	form.Del("switch")
	r = f.do(f.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	if r.StatusCode >= 300 && r.StatusCode != http.StatusOK {
		t.Fatalf("save: %d %s", r.StatusCode, r.body)
	}
	j, err := f.store.JobByName(context.Background(), f.coll.ID, "month-end")
	if err != nil {
		t.Fatalf("saved job: %v\n%s", err, r.body)
	}
	if !strings.Contains(string(j.Definition), `"calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}`) {
		t.Errorf("stored: %s", j.Definition)
	}
	r = f.get(base + "/jobs/month-end/edit")
	if !r.doc.Find(`input[name="exclude_calendars"][value="holidays"]`).Is(":checked") && r.doc.Find(`input[name="exclude_calendars"][value="holidays"][checked]`).Length() != 1 {
		t.Error("the edit form does not check holidays")
	}
	if v := r.doc.Find(`#on_excluded option[selected]`).AttrOr("value", ""); v != "nextDay" {
		t.Errorf("onExcluded shows %q", v)
	}
}
