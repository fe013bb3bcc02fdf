package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// calendarJobBody is a daily job at 09:00 UTC from 2027-03-01 that skips
// the days of the calendar "holidays".
const calendarJobBody = `{"properties":{"startTime":"2027-03-01T09:00:00Z",
	"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},
	"recurrence":{"frequency":"day","calendars":{"exclude":["holidays"]}}}}`

// TestJobsWithCalendarsInAnswersPagesAndPreview checks that the API's
// nextExecutionTime, the job page and POST /api/v1/preview apply the
// workspace's calendars, and that a job naming a missing calendar is a 400
// naming the field with nothing changed.
func TestJobsWithCalendarsInAnswersPagesAndPreview(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)

	before := a.fingerprint()
	r := a.api(http.MethodPut, coll+"/jobs/daily"+apiVersion, calendarJobBody)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, `recurrence.calendars.exclude[0]: there is no calendar named \"holidays\" in this workspace`) {
		t.Errorf("missing calendar: %s", r.body)
	}
	if a.fingerprint() != before {
		t.Error("a refused job changed the database")
	}

	wantStatus(t, a.api(http.MethodPut, calBase+"/holidays",
		`{"entries":[{"from":"2027-03-01","to":"2027-03-02","label":"Closed"}]}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/daily"+apiVersion, calendarJobBody), http.StatusCreated)
	r = a.api(http.MethodGet, coll+"/jobs/daily"+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"nextExecutionTime":"2027-03-03T09:00:00Z"`) || !strings.Contains(r.body, `"calendars":{"exclude":["holidays"],"onExcluded":"skip"}`) {
		t.Errorf("job answer: %s", r.body)
	}

	a.signIn("api", "password123")
	page := a.get("/c/default/rg/jc/jobs/daily")
	wantStatus(t, page, http.StatusOK)
	if !strings.Contains(page.body, "At 09:00, every day, except on holidays") || !strings.Contains(page.body, `datetime="2027-03-03T09:00:00Z"`) {
		t.Errorf("job page lacks the calendar's effect")
	}

	job := `{"startTime":"2027-03-01T09:00:00Z","action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},
		"recurrence":{"frequency":"day","calendars":{"exclude":["holidays"],"onExcluded":"previousDay"}},"n":2`
	r = a.postJSON("/api/v1/preview", job+`,"workspace":"default"}`)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"occurrences":["2027-03-03T09:00:00Z","2027-03-04T09:00:00Z"]`) ||
		!strings.Contains(r.body, "2027-03-01 09:00 is skipped: Closed (holidays)") {
		t.Errorf("preview: %s", r.body)
	}
	r = a.postJSON("/api/v1/preview", job+`}`)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "workspace: is required when the job excludes calendars") {
		t.Errorf("preview without workspace: %s", r.body)
	}
	wantStatus(t, a.postJSON("/api/v1/preview", job+`,"workspace":"elsewhere"}`), http.StatusForbidden)
}

// TestCalendarImportPageWithoutAFile checks that the import page answers a
// form sent without multipart encoding (no file can be in it) with the
// form's error, not a 500, and changes nothing.
func TestCalendarImportPageWithoutAFile(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("alice", "password123")
	a.signIn("alice", "password123")
	tok := a.csrf("/w/default/calendars/import")
	before := a.calendarRows()
	for _, form := range []url.Values{
		{"csrf_token": {tok}, "name": {"x"}, "a": {"b"}},
		{"csrf_token": {tok}, "name": {"x"}},
	} {
		r := a.post("/w/default/calendars/import", form)
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if !strings.Contains(r.body, "Choose an .ics file.") {
			t.Errorf("no field error in %s", r.body)
		}
	}
	if a.calendarRows() != before {
		t.Error("a refused import changed the calendars")
	}
}
