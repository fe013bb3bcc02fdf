package web

import (
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// TestPreviewStartNow checks that the first run of a job without a start
// time is labelled and marked on the calendar strip, also when now is not
// a whole second.
func TestPreviewStartNow(t *testing.T) {
	now := time.Date(2026, 11, 22, 18, 36, 12, 345_000_000, time.UTC)
	for _, tc := range []struct {
		name, def string
		note      string
		runsToday int
	}{
		{"schedule, no start", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day","schedule":{"hours":[6],"minutes":[0]}}}`, StartNowNote, 1},
		{"elapsed, no start", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour","interval":12}}`, StartNowNote, 1},
		{"start set", `{"startTime":"2026-11-22T06:00:00Z","action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day","schedule":{"hours":[6],"minutes":[0]}}}`, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := jobdef.ParseWith([]byte(tc.def), jobdef.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := recurrence.Preview(job, now, 3)
			if err != nil {
				t.Fatal(err)
			}
			occ := PreviewOccurrencesOf(job, res.Occurrences, now)
			if occ[0].Note != tc.note {
				t.Errorf("first run %s: note %q, want %q", occ[0].Local, occ[0].Note, tc.note)
			}
			for _, o := range occ[1:] {
				if o.Note != "" {
					t.Errorf("later run %s has a note %q", o.Local, o.Note)
				}
			}
			for _, d := range NewCalendarDays(job, now, nil) {
				if d.Today && d.Count != tc.runsToday {
					t.Errorf("today %s: %d runs, want %d", d.Date, d.Count, tc.runsToday)
				}
			}
		})
	}
}
