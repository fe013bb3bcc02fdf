package web

import "testing"

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"collection", CollectionPath("default", "rg", "jc"), "/c/default/rg/jc"},
		{"collection escaped", CollectionPath("w s", "r/g", "j?c"), "/c/w%20s/r%2Fg/j%3Fc"},
		{"collection page", CollectionPagePath("w", "rg", "jc", "a b"), "/c/w/rg/jc?after=a+b"},
		{"collection first page", CollectionPagePath("w", "rg", "jc", ""), "/c/w/rg/jc"},
		{"collection enable", CollectionEnablePath("w", "rg", "jc"), "/c/w/rg/jc/enable"},
		{"new job", NewJobPath("w", "rg", "jc"), "/c/w/rg/jc/jobs/new"},
		{"job preview", JobPreviewPath("w", "rg", "jc"), "/c/w/rg/jc/jobs/preview"},
		{"job", JobPath("w", "rg", "jc", "my job"), "/c/w/rg/jc/jobs/my%20job"},
		{"job edit", JobEditPath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/edit"},
		{"job history", JobHistoryPath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/history"},
		{"job timeline", JobTimelinePath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/timeline"},
		{"job trends", JobTrendsPath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/trends"},
		{"job run", JobRunPath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/run"},
		{"job delete", JobDeletePath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/delete"},
		{"job export", JobExportPath("w", "rg", "jc", "j"), "/c/w/rg/jc/jobs/j/export.json"},
		{"job feed", JobFeedPath("w", "rg", "jc", "j", "1.a+b"), "/c/w/rg/jc/jobs/j/calendar.ics?token=1.a%2Bb"},
		{"calendars", CalendarsPath("my ws"), "/w/my%20ws/calendars"},
		{"new calendar", NewCalendarPath("w"), "/w/w/calendars/new"},
		{"calendar import", CalendarImportPath("w", ""), "/w/w/calendars/import"},
		{"calendar import named", CalendarImportPath("w", "a b"), "/w/w/calendars/import?name=a+b"},
		{"calendar", CalendarPath("w", "hols/de"), "/w/w/calendars/hols%2Fde"},
		{"calendar year", CalendarYearPath("w", "h", 2027), "/w/w/calendars/h?year=2027"},
		{"calendar edit", CalendarEditPath("w", "h"), "/w/w/calendars/h/edit"},
		{"calendar export", CalendarExportPath("w", "h"), "/w/w/calendars/h/export.ics"},
		{"calendar delete", CalendarDeletePath("w", "h"), "/w/w/calendars/h/delete"},
		{"month", MonthPath("w"), "/w/w/month"},
		{"month day", MonthDayPath("w"), "/w/w/month/day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
