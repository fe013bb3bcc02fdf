package handlers_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// Tests of the calendar pages (calendars_pages.go, calendars_build.go,
// calendars_import_page.go). The app's clock stands at 2026-11-21 12:00
// UTC.

const pageHolidays = `{"timeZone":"Europe/Berlin","entries":[
	{"date":"2026-12-24","label":"Christmas Eve"},
	{"yearly":"12-25","label":"Christmas Day","except":["2030-12-25"]},
	{"from":"2026-12-28","to":"2026-12-30","label":"Between the years"}]}`

// dailyExcluding is a job at 09:00 Berlin every day, skipping holidays.
const dailyExcluding = `{"action":{"type":"https","request":{"uri":"https://example.com/hook","method":"POST","body":"x"}},
	"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[9],"minutes":[0]},"timeZone":"Europe/Berlin",
	"calendars":{"exclude":["holidays"],"onExcluded":"skip"}},"startTime":"2026-11-01T00:00:00"}`

// withHolidays stores the calendar "holidays" through the catalog.
func (f *pgFixture) withHolidays() {
	f.t.Helper()
	if _, _, err := f.cat.PutCalendar(context.Background(), catalog.System("test"), "default", "holidays", []byte(pageHolidays)); err != nil {
		f.t.Fatal(err)
	}
}

func TestCalendarListAndYearView(t *testing.T) {
	f := newPGFixture(t)
	f.withHolidays()
	f.putJob(f.coll, "daily", dailyExcluding)
	r := f.get("/w/default/calendars")
	wantStatus(t, r, http.StatusOK)
	row := r.doc.Find(`tr[data-calendar="holidays"]`)
	text := strings.Join(strings.Fields(row.Text()), " ")
	for _, want := range []string{"holidays", "Europe/Berlin", "3", "Thu 24 Dec 2026 · Christmas Eve", "Fri 25 Dec 2026 · Christmas Day", "rg/jc/daily"} {
		if !strings.Contains(text, want) {
			t.Errorf("list row %q lacks %q", text, want)
		}
	}
	r = f.get("/w/default/calendars/HOLIDAYS")
	wantStatus(t, r, http.StatusOK)
	if h := r.doc.Find("#year-heading").Text(); h != "2026" {
		t.Errorf("year %q", h)
	}
	eve := r.doc.Find(`span[data-date="2026-12-24"]`)
	if v, _ := eve.Attr("data-excluded"); v != "true" || eve.AttrOr("title", "") != "Christmas Eve" {
		t.Errorf("24 Dec not shaded with its label: %v", pgTexts(eve))
	}
	if _, ok := r.doc.Find(`span[data-date="2026-12-23"]`).Attr("data-excluded"); ok {
		t.Error("23 Dec is shaded")
	}
	if n := r.doc.Find(`span[data-excluded="true"]`).Length(); n != 5 {
		t.Errorf("%d days shaded in 2026, want 5", n)
	}
	if n := r.doc.Find("#excluded-days li").Length(); n != 5 {
		t.Errorf("%d days listed, want 5", n)
	}
	if href := r.doc.Find("#year-prev").AttrOr("href", ""); href != "/w/default/calendars/holidays?year=2025" {
		t.Errorf("previous year link %q", href)
	}
	if got := pgTexts(r.doc.Find("#calendar-jobs a")); len(got) != 1 || got[0] != "rg/jc/daily" {
		t.Errorf("jobs: %v", got)
	}
	r = f.get("/w/default/calendars/holidays?year=2030")
	if _, ok := r.doc.Find(`span[data-date="2030-12-25"]`).Attr("data-excluded"); ok {
		t.Error("2030-12-25 is an exception but is shaded")
	}
	r = f.get("/w/default/calendars/holidays/export.ics")
	if wantStatus(t, r, http.StatusOK); !strings.Contains(r.body, "SUMMARY:Christmas Day") {
		t.Errorf("export: %s", r.body)
	}
	// Not found and other workspaces.
	pgWantErrorPage(t, f.get("/w/default/calendars/nope"), http.StatusNotFound)
	f.otherWorkspace()
	pgWantErrorPage(t, f.get("/w/other/calendars"), http.StatusNotFound)
	pgWantErrorPage(t, f.get("/w/default/calendars/holidays?year=abc"), http.StatusBadRequest)
	if f.get("/w/default/calendars").doc.Find("#other-workspaces").Length() != 0 {
		t.Error("a workspace the user is no member of is linked")
	}
	f.sql(`INSERT INTO memberships (workspace_id, user_id) SELECT 'other', id FROM users`)
	if href := f.get("/w/default/calendars").doc.Find("#other-workspaces a").AttrOr("href", ""); href != "/w/other/calendars" {
		t.Errorf("other workspace link %q", href)
	}
	if href := f.get("/w/default/month").doc.Find("#other-workspaces a").AttrOr("href", ""); href != "/w/other/month" {
		t.Errorf("other workspace month link %q", href)
	}
}

func TestCalendarEditShowsProblemsInPlace(t *testing.T) {
	f := newPGFixture(t)
	f.withHolidays()
	r := f.get("/w/default/calendars/holidays/edit")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#entries").Text(); !strings.Contains(v, `{"date":"2026-12-24","label":"Christmas Eve"}`) {
		t.Errorf("entries textarea: %s", v)
	}
	before := f.calendarRows()
	bad := url.Values{"timeZone": {"Mars/Base"}, "entries": {`[{"date":"2026-12-24"},{"from":"2026-05-02","to":"2026-05-01"}]`}}
	r = f.hxPost("/w/default/calendars/holidays/edit", bad)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	pgWantFragment(t, r, "calendar-form")
	if msg := r.doc.Find("#timeZone-error").Text(); !strings.Contains(msg, "Mars/Base") {
		t.Errorf("zone error %q", msg)
	}
	if got := pgTexts(r.doc.Find("#entries-problems li")); len(got) != 1 || !strings.HasPrefix(got[0], "entries[1].to:") {
		t.Errorf("entry problems %v", got)
	}
	r = f.formPost("/w/default/calendars/holidays/edit", url.Values{"entries": {`{not json`}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#entries-error").Text(); !strings.Contains(msg, "JSON array") || r.doc.Find(`nav[aria-label="Main"]`).Length() != 1 {
		t.Errorf("not JSON: a full page with the entries' error, got %q", msg)
	}
	if f.calendarRows() != before {
		t.Fatal("a refused save changed the calendar")
	}
	r = f.formPost("/w/default/calendars/holidays/edit", url.Values{"timeZone": {"Europe/Berlin"}, "description": {"Public"},
		"entries": {`[{"date":"2027-01-01","label":"New Year"}]`}})
	wantRedirect(t, r, "/w/default/calendars/holidays")
	r = f.get("/w/default/calendars/holidays?year=2027")
	if r.doc.Find("#flash").Length() != 1 || r.doc.Find(`span[data-excluded="true"]`).Length() != 1 {
		t.Errorf("after save: %v", pgTexts(r.doc.Find("#flash")))
	}
	// A new calendar; its name is checked and may not be taken.
	r = f.formPost("/w/default/calendars/new", url.Values{"name": {"holidays"}, "entries": {"[]"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#name-error").Text(); !strings.Contains(msg, "already exists") {
		t.Errorf("taken name: %q", msg)
	}
	r = f.formPost("/w/default/calendars/new", url.Values{"name": {"bad name"}, "entries": {"[]"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#name-error").Text(); !strings.Contains(msg, "not a calendar name") {
		t.Errorf("bad name: %q", msg)
	}
	r = f.formPost("/w/default/calendars/new", url.Values{"name": {"closures"}, "entries": {""}})
	wantRedirect(t, r, "/w/default/calendars/closures")
}

func TestCalendarDeletePage(t *testing.T) {
	f := newPGFixture(t)
	f.withHolidays()
	f.putJob(f.coll, "daily", dailyExcluding)
	r := f.get("/w/default/calendars/holidays/delete")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#calendar-delete-confirm-button").Length() != 0 {
		t.Error("a calendar in use offers to be deleted")
	}
	r = f.formPost("/w/default/calendars/holidays/delete", url.Values{"confirm": {"yes"}})
	wantStatus(t, r, http.StatusConflict)
	if msg := r.doc.Find("#calendar-delete-error").Text(); !strings.Contains(msg, "used by 1 job: rg/jc/daily") {
		t.Errorf("refusal: %q", msg)
	}
	if err := f.cat.DeleteJob(context.Background(), catalog.System("test"), f.coll, "daily"); err != nil {
		t.Fatal(err)
	}
	r = f.formPost("/w/default/calendars/holidays/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, r, "/w/default/calendars")
	if _, err := f.store.CalendarByName(context.Background(), "default", "holidays"); err == nil {
		t.Error("the calendar is still there")
	}
}

// multipartPost posts fields and a file as a browser's upload form does.
func (f *pgFixture) multipartPost(path string, fields map[string]string, file string) *response {
	f.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("csrf_token", f.csrf("/"))
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if file != "" {
		fw, _ := w.CreateFormFile("file", "holidays.ics")
		_, _ = fw.Write([]byte(file))
	}
	_ = w.Close()
	return f.do(f.client, http.MethodPost, path, nil, http.Header{"Content-Type": {w.FormDataContentType()}}, &b)
}

func TestCalendarImportPage(t *testing.T) {
	f := newPGFixture(t)
	r := f.get("/w/default/calendars/import?name=holidays")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#name").AttrOr("value", ""); v != "holidays" {
		t.Errorf("name field %q", v)
	}
	r = f.multipartPost("/w/default/calendars/import", map[string]string{"name": "holidays"}, threeHolidays)
	wantStatus(t, r, http.StatusOK)
	if n := r.doc.Find(`#ics-report-table tr[data-result="add"]`).Length(); n != 3 {
		t.Errorf("%d rows to add, want 3", n)
	}
	if got := pgTexts(r.doc.Find(`#ics-report-table tr[data-result="skipped"]`)); len(got) != 1 || !strings.Contains(got[0], "not imported: RRULE uses BYSETPOS") {
		t.Errorf("skipped: %v", got)
	}
	if f.calendarRows() != "" {
		t.Fatal("the dry run stored a calendar")
	}
	ics := r.doc.Find(`input[name="ics"]`).AttrOr("value", "")
	r = f.multipartPost("/w/default/calendars/import", map[string]string{"name": "holidays", "timeZone": "", "ics": ics, "confirm": "yes"}, "")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#ics-open-calendar").Length() != 1 {
		t.Errorf("after the import: %s", r.body)
	}
	row, err := f.store.CalendarByName(context.Background(), "default", "holidays")
	if err != nil || !strings.Contains(string(row.Definition), "Boxing Day") || !strings.Contains(string(row.Definition), "Europe/Berlin") {
		t.Errorf("stored: %v %+v", err, row)
	}
	r = f.multipartPost("/w/default/calendars/import", map[string]string{"name": "x"}, "not a calendar")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#file-error").Text(); !strings.Contains(msg, "not an iCalendar file") {
		t.Errorf("bad file: %q", msg)
	}
}

var _ = models.DefaultWorkspaceID

func TestCalendarEditRefusesAStaleForm(t *testing.T) {
	f := newPGFixture(t)
	f.withHolidays()
	r := f.get("/w/default/calendars/holidays/edit")
	if v := r.doc.Find(`input[name="version"]`).AttrOr("value", ""); v != "1" {
		t.Fatalf("version field %q", v)
	}
	// Someone else saves first.
	if _, _, err := f.cat.PutCalendar(context.Background(), catalog.System("test"), "default", "holidays", []byte(`{"entries":[{"date":"2027-01-01"}]}`)); err != nil {
		t.Fatal(err)
	}
	before := f.calendarRows()
	r = f.hxPost("/w/default/calendars/holidays/edit", url.Values{"version": {"1"}, "entries": {`[{"date":"2028-01-01"}]`}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	pgWantFragment(t, r, "calendar-form")
	if msg := r.doc.Find("#calendar-form-conflict").Text(); !strings.Contains(msg, "changed by someone else") {
		t.Errorf("conflict message %q", msg)
	}
	if f.calendarRows() != before {
		t.Error("a stale save changed the calendar")
	}
	r = f.formPost("/w/default/calendars/holidays/edit", url.Values{"version": {"2"}, "entries": {`[{"date":"2028-01-01"}]`}})
	wantRedirect(t, r, "/w/default/calendars/holidays")
}
