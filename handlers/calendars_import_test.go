package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// threeHolidays is an iCalendar file with three holidays of 2026.
const threeHolidays = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-TIMEZONE:Europe/Berlin\r\n" +
	"BEGIN:VEVENT\r\nUID:1@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Christmas Eve\r\nDTSTART;VALUE=DATE:20261224\r\nDTEND;VALUE=DATE:20261225\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:2@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Christmas Day\r\nDTSTART;VALUE=DATE:20261225\r\nDTEND;VALUE=DATE:20261226\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:3@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Boxing Day\r\nDTSTART;VALUE=DATE:20261226\r\nDTEND;VALUE=DATE:20261227\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:4@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Last workday\r\nDTSTART;VALUE=DATE:20260130\r\nRRULE:FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO,TU,WE,TH,FR\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

type calImportReport struct {
	DryRun      bool
	Created     bool
	TimeZone    string
	Added       []struct{ Event, Note string }
	Existing    []struct{ Event, Note string }
	NotImported []struct{ Event, Reason string }
	Entries     int
}

func (a *app) postICS(path, body string) *response {
	a.t.Helper()
	h := http.Header{"Content-Type": {"text/calendar"}, "Authorization": {"Bearer " + a.token}}
	return a.do(a.client, http.MethodPost, path, nil, h, strings.NewReader(body))
}

func TestCalendarAPIImportICS(t *testing.T) {
	a := newApp(t, false).withToken()
	// A dry run creates nothing and reports.
	r := a.postICS(calBase+"/holidays/import", threeHolidays)
	wantStatus(t, r, http.StatusOK)
	rep := decode[calImportReport](t, r)
	if !rep.DryRun || !rep.Created || rep.TimeZone != "Europe/Berlin" || len(rep.Added) != 3 || len(rep.NotImported) != 1 ||
		!strings.Contains(rep.NotImported[0].Reason, "not imported: RRULE uses BYSETPOS") {
		t.Errorf("dry run: %+v", rep)
	}
	if a.calendarRows() != "" {
		t.Fatal("the dry run stored a calendar")
	}
	r = a.postICS(calBase+"/holidays/import?dryRun=false", threeHolidays)
	wantStatus(t, r, http.StatusOK)
	if rep := decode[calImportReport](t, r); rep.DryRun || len(rep.Added) != 3 || rep.Entries != 3 {
		t.Errorf("import: %+v", rep)
	}
	r = a.api(http.MethodGet, calBase+"/holidays", "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"timeZone":"Europe/Berlin"`) || !strings.Contains(r.body, `{"date":"2026-12-25","label":"Christmas Day"}`) {
		t.Errorf("stored: %s", r.body)
	}
	// Importing again adds nothing: every entry is already there.
	r = a.postICS(calBase+"/holidays/import?dryRun=false", threeHolidays)
	rep = decode[calImportReport](t, r)
	if len(rep.Added) != 0 || len(rep.Existing) != 3 || rep.Existing[0].Note != "already in the calendar" {
		t.Errorf("second import: %+v", rep)
	}
	if v := decode[calendarOut](t, a.api(http.MethodGet, calBase+"/holidays", "")); v.Version != 1 {
		t.Errorf("an import that adds nothing changed the version to %d", v.Version)
	}
	// The export parses and imports into a new calendar to the same entries.
	r = a.api(http.MethodGet, calBase+"/holidays?format=ics", "")
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") || !strings.Contains(r.body, "DTSTART;VALUE=DATE:20261225") {
		t.Errorf("export: %s\n%s", ct, r.body)
	}
	r = a.postICS(calBase+"/copy/import?dryRun=false", r.body)
	if rep := decode[calImportReport](t, r); len(rep.Added) != 3 || rep.TimeZone != "Europe/Berlin" {
		t.Errorf("re-import: %+v", rep)
	}
	// Bad input.
	r = a.postICS(calBase+"/holidays/import", "not a calendar")
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, `"target":"file"`) {
		t.Errorf("not iCalendar: %d %s", r.StatusCode, r.body)
	}
	r = a.postICS(calBase+"/fresh/import?timeZone=Mars/Base", threeHolidays)
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, `"target":"timeZone"`) {
		t.Errorf("bad zone: %d %s", r.StatusCode, r.body)
	}
}
