package recurrence

import (
	"testing"
	"time"
)

// TestSecondDaylightSaving: frequency second follows the wall clock with a
// schedule (wall seconds that do not exist move forward by the gap, those
// that happen twice run once, at the first instant) and counts elapsed
// seconds without one (Europe/Berlin, 2026: 03-29 02:00→03:00, 10-25
// 03:00→02:00).
func TestSecondDaylightSaving(t *testing.T) {
	rows := []struct {
		name, start, rec, now string
		want                  []string // the first executions (UTC)
		count                 int      // executions on the day of now, when not 0
	}{
		{"spring forward: 02:00–02:14 every second runs 03:00–03:14",
			"2026-03-28T00:00:00", `{"frequency":"second","schedule":{"hours":[2],"minutes":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14]},"timeZone":"Europe/Berlin"}`,
			"2026-03-29T00:30:00Z", []string{"2026-03-29T01:00:00Z", "2026-03-29T01:00:01Z", "2026-03-29T01:00:02Z"}, 900},
		{"spring forward, every 10 s: the shifted seconds keep their wall times",
			"2026-03-28T00:00:05", `{"frequency":"second","interval":10,"schedule":{"hours":[1,2],"minutes":[59,0]},"timeZone":"Europe/Berlin"}`,
			"2026-03-29T00:58:00Z", []string{"2026-03-29T00:59:05Z", "2026-03-29T00:59:15Z", "2026-03-29T00:59:25Z", "2026-03-29T00:59:35Z",
				"2026-03-29T00:59:45Z", "2026-03-29T00:59:55Z", "2026-03-29T01:00:05Z", "2026-03-29T01:00:15Z"}, 0},
		{"fall back: the repeated 02:00–02:14 runs once, at the first pass",
			"2026-10-24T00:00:00", `{"frequency":"second","interval":60,"schedule":{"hours":[2],"minutes":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14]},"timeZone":"Europe/Berlin"}`,
			"2026-10-24T23:30:00Z", []string{"2026-10-25T00:00:00Z", "2026-10-25T00:01:00Z", "2026-10-25T00:02:00Z"}, 15},
		{"no schedule: elapsed seconds across the gap",
			"2026-03-29T01:59:30", `{"frequency":"second","interval":10,"timeZone":"Europe/Berlin"}`,
			"2026-03-29T00:00:00Z", []string{"2026-03-29T00:59:30Z", "2026-03-29T00:59:40Z", "2026-03-29T00:59:50Z", "2026-03-29T01:00:00Z", "2026-03-29T01:00:10Z"}, 0},
		{"no schedule: elapsed seconds across the repeated hour",
			"2026-10-25T02:59:50", `{"frequency":"second","interval":5,"timeZone":"Europe/Berlin"}`,
			"2026-10-24T00:00:00Z", []string{"2026-10-25T00:59:50Z", "2026-10-25T00:59:55Z", "2026-10-25T01:00:00Z", "2026-10-25T01:00:05Z"}, 0},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			js := jobJSON(r.start, r.rec)
			got := takeN(t, js, r.now, len(r.want))
			if !sameInstants(t, got, r.want) {
				t.Fatalf("got %v, want %v", got, r.want)
			}
			if r.count == 0 {
				return
			}
			rule, err := Compile(mustParse(t, js), mustTime(t, r.now))
			if err != nil {
				t.Fatal(err)
			}
			from := mustTime(t, r.now)
			n := 0
			for at, ok := rule.Next(from); ok && at.Before(from.Add(12*time.Hour)); at, ok = rule.Next(at) {
				n++
			}
			if n != r.count {
				t.Errorf("%d executions in the 12 hours from %s, want %d", n, r.now, r.count)
			}
		})
	}
}

func TestSecondDescriptions(t *testing.T) {
	rows := []struct{ rec, want string }{
		{`{"frequency":"second"}`, "Every second"},
		{`{"frequency":"second","interval":10}`, "Every 10 seconds"},
		{`{"frequency":"second","interval":10,"count":5}`, "Every 10 seconds, 5 times"},
		{`{"frequency":"second","interval":10,"window":"PT5S"}`, "Every 10 seconds, spread over 5 seconds"},
		{`{"frequency":"second","interval":10,"schedule":{"minutes":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14],"hours":[9,10,11,12,13,14,15,16,17],"weekDays":["monday","tuesday","wednesday","thursday","friday"]},"timeZone":"Europe/Berlin"}`,
			"Every 10 seconds, at minutes 0–14 past the hour, during hours 9–17, on Monday to Friday (Europe/Berlin)"},
		{`{"frequency":"second","interval":30,"schedule":{"hours":[6,18],"monthDays":[1,-1],"months":[1,7]}}`,
			"Every 30 seconds, during hours 6 and 18, on the first and last day of the month, in January and July"},
		{`{"frequency":"second","schedule":{"minutes":[5]}}`, "Every second, at minute 5 past the hour"},
	}
	for _, r := range rows {
		rule, err := Compile(mustParse(t, jobJSON("2026-01-01T00:00:00Z", r.rec)), mustTime(t, "2026-01-01T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		if got := rule.Description(); got != r.want {
			t.Errorf("%s:\n got %q\nwant %q", r.rec, got, r.want)
		}
	}
}
