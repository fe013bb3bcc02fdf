package web

import (
	"reflect"
	"testing"
	"time"

	"sked/models/jobdef"
)

// TestTimelineTicksDaylightSaving checks the day ticks of the timeline in
// zones whose clocks skip midnight: one tick per date, at the date's first
// instant, and an end (time.Date put the skipped midnight at 23:00 of the
// day before, and stepping from there never moved on).
func TestTimelineTicksDaylightSaving(t *testing.T) {
	for _, tc := range []struct {
		name, zone string
		r          TimelineRange
		to         time.Time
		want       []string
	}{
		{"7 d, Santiago skips 2024-09-08 00:00", "America/Santiago", TimelineRanges[1], time.Date(2024, 9, 11, 12, 0, 0, 0, time.UTC),
			[]string{"2024-09-05T00:00:00-04:00", "2024-09-06T00:00:00-04:00", "2024-09-07T00:00:00-04:00", "2024-09-08T01:00:00-03:00",
				"2024-09-09T00:00:00-03:00", "2024-09-10T00:00:00-03:00", "2024-09-11T00:00:00-03:00"}},
		{"30 d, Havana skips 2024-03-10 00:00", "America/Havana", TimelineRanges[2], time.Date(2024, 3, 26, 12, 0, 0, 0, time.UTC),
			[]string{"2024-02-26T00:00:00-05:00", "2024-03-02T00:00:00-05:00", "2024-03-07T00:00:00-05:00", "2024-03-12T00:00:00-04:00",
				"2024-03-17T00:00:00-04:00", "2024-03-22T00:00:00-04:00"}},
		{"7 d, Santiago repeats 2024-04-06 23:00", "America/Santiago", TimelineRanges[1], time.Date(2024, 4, 10, 12, 0, 0, 0, time.UTC),
			[]string{"2024-04-04T00:00:00-03:00", "2024-04-05T00:00:00-03:00", "2024-04-06T00:00:00-03:00", "2024-04-07T00:00:00-04:00",
				"2024-04-08T00:00:00-04:00", "2024-04-09T00:00:00-04:00", "2024-04-10T00:00:00-04:00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zone, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan []tick, 1)
			go func() { done <- timelineTicks(tc.r, tc.to.Add(-tc.r.Span), tc.to, zone) }()
			var ticks []tick
			select {
			case ticks = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("timelineTicks did not return")
			}
			var got []string
			for _, k := range ticks {
				got = append(got, k.at.In(zone).Format(time.RFC3339))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCalendarDaysDaylightSaving checks the job form's six-week strip in a
// zone whose clocks skip midnight: 42 consecutive dates, each counting the
// runs of its own date (a run at 23:30 on the eve of the change stays on
// the eve).
func TestCalendarDaysDaylightSaving(t *testing.T) {
	def := `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},"startTime":"2024-09-01T00:00:00",` +
		`"recurrence":{"frequency":"day","timeZone":"America/Santiago","schedule":{"hours":[23],"minutes":[30]}}}`
	job, err := jobdef.ParseWith([]byte(def), jobdef.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 9, 6, 12, 0, 0, 0, time.UTC) // Friday 6 September, 08:00 local
	days := NewCalendarDays(job, now, nil)
	if len(days) != 42 {
		t.Fatalf("%d days, want 42", len(days))
	}
	want := time.Date(2024, 9, 2, 0, 0, 0, 0, time.UTC) // the Monday of the week
	for i, d := range days {
		if d.Date != want.Format("2006-01-02") {
			t.Fatalf("day %d is %s, want %s", i, d.Date, want.Format("2006-01-02"))
		}
		wantCount := 1
		if want.Before(time.Date(2024, 9, 6, 0, 0, 0, 0, time.UTC)) {
			wantCount = 0 // before today: not counted
		}
		if d.Count != wantCount {
			t.Errorf("%s: %d runs, want %d", d.Date, d.Count, wantCount)
		}
		if d.Today != (d.Date == "2024-09-06") {
			t.Errorf("%s: today %v", d.Date, d.Today)
		}
		want = want.AddDate(0, 0, 1)
	}
}
