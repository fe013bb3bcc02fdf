package web

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/scheduler/recurrence"
)

// holidays is a calendar of ws "w" with two labelled days and one without.
func holidays(t *testing.T) (*models.Calendar, *caldef.Calendar, *recurrence.Calendar) {
	t.Helper()
	row := &models.Calendar{Name: "holidays", Version: 3, Definition: []byte(`{"timeZone":"Europe/Berlin","description":"Days off",
		"entries":[{"date":"2026-12-24","label":"Christmas Eve"},{"date":"2026-12-31"},{"date":"2027-01-01","label":"New Year"}]}`)}
	cal, err := caldef.Parse(row.Definition)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := recurrence.CompileCalendar(row.Name, cal)
	if err != nil {
		t.Fatal(err)
	}
	return row, cal, rc
}

func TestCalendarPresenters(t *testing.T) {
	row, cal, rc := holidays(t)
	jobs := []models.JobRef{{ResourceGroup: "rg", Collection: "jc", Name: "nightly"}}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := NewCalendarRow("w", row, cal, rc, jobs, now)
	page := NewCalendarPageView("w", row, cal, rc, 2026, jobs, "Saved.")
	form := NewCalendarForm("w", row, "tok")
	del := NewCalendarDeleteView("w", row, jobs, "tok", nil)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"row", r, CalendarRow{Name: "holidays", URL: "/w/w/calendars/holidays", Zone: "Europe/Berlin", Entries: 3,
			Next: []string{"Thu 24 Dec 2026 · Christmas Eve", "Thu 31 Dec 2026", "Fri 1 Jan 2027 · New Year"},
			Jobs: []JobLink{{Name: "rg/jc/nightly", URL: "/c/w/rg/jc/jobs/nightly"}}}},
		{"page links", []string{page.ListURL, page.EditURL, page.ImportURL, page.ExportURL, page.DeleteURL, page.PrevURL, page.NextURL},
			[]string{"/w/w/calendars", "/w/w/calendars/holidays/edit", "/w/w/calendars/import?name=holidays",
				"/w/w/calendars/holidays/export.ics", "/w/w/calendars/holidays/delete",
				"/w/w/calendars/holidays?year=2025", "/w/w/calendars/holidays?year=2027"}},
		{"page days", page.Days, []ExcludedDayView{{Date: "Thu 24 Dec 2026", Label: "Christmas Eve"}, {Date: "Thu 31 Dec 2026", Label: "excluded"}}},
		{"twelve months", len(page.Months), 12},
		{"a labelled day", page.Months[11].Weeks[3][3], DayCell{Day: 24, Date: "2026-12-24", Excluded: true, Label: "Christmas Eve"}},
		{"an unlabelled day", page.Months[11].Weeks[4][3], DayCell{Day: 31, Date: "2026-12-31", Excluded: true, Label: "excluded"}},
		{"an ordinary day", page.Months[11].Weeks[4][2], DayCell{Day: 30, Date: "2026-12-30"}},
		{"flash", page.Flash, "Saved."},
		{"form", []string{form.Action, form.CancelURL, form.TimeZone, form.Description}, []string{
			"/w/w/calendars/holidays/edit", "/w/w/calendars/holidays", "Europe/Berlin", "Days off"}},
		{"form entries", form.Entries, "[\n  {\"date\":\"2026-12-24\",\"label\":\"Christmas Eve\"},\n  {\"date\":\"2026-12-31\"},\n  {\"date\":\"2027-01-01\",\"label\":\"New Year\"}\n]"},
		{"new form", NewCalendarForm("w", nil, "tok"), CalendarForm{Workspace: "w", IsNew: true, Action: "/w/w/calendars/new",
			CancelURL: "/w/w/calendars", CSRFToken: "tok", Entries: "[\n]"}},
		{"delete refused", del.Error, "The calendar holidays cannot be deleted: 1 jobs exclude it. Remove it from their recurrence.calendars.exclude first."},
		{"delete with a reason", NewCalendarDeleteView("w", row, nil, "tok", errors.New("Confirm.")).Error, "Confirm."},
		{"other workspaces", WorkspaceLinks([]models.Workspace{{ID: "w"}, {ID: "x y"}}, "w", MonthPath),
			[]JobLink{{Name: "x y", URL: "/w/x%20y/month"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}
