package web

import (
	"reflect"
	"testing"

	"sked/models/jobdef"
)

func TestJobFormFrom(t *testing.T) {
	parse := func(t *testing.T, def string) *jobdef.Job {
		t.Helper()
		job, err := jobdef.ParseWith([]byte(def), jobdef.Options{SecretsOptional: true, Stored: true})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	for _, tc := range []struct {
		name, def, unsupported string
		check                  func(t *testing.T, f JobForm)
	}{
		{"a daily request", `{"startTime":"2026-01-01T08:00:00+01:00","action":{"type":"http","request":{"uri":"https://example.com/","method":"POST",
			"headers":{"X-A":"1"},"body":"hi"}},"recurrence":{"frequency":"week","interval":2,"count":5,"timeZone":"Europe/Berlin",
			"schedule":{"weekDays":["Friday","Monday"],"hours":[17,9],"minutes":[0]}}}`, "",
			func(t *testing.T, f JobForm) {
				got := []any{f.Mode, f.Method, f.URI, f.Headers, f.Body, f.StartTime, f.TimeZone, f.Frequency, f.Interval, f.End, f.Count, f.Hours, f.WeekDays}
				want := []any{"form", "POST", "https://example.com/", "X-A: 1", "hi", "2026-01-01T08:00", "Europe/Berlin", "week", "2", "count", "5",
					[]int{9, 17}, []string{"friday", "monday"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			}},
		{"a queue action", `{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acc","queueName":"jobs","sasToken":"x","message":"m"}}}`,
			`an action of type "storageQueue"`, nil},
		{"count and end time", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
			"recurrence":{"frequency":"day","count":3,"endTime":"2027-01-01T00:00:00Z"}}`, "both a count and an end time", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, unsupported := JobFormFrom(parse(t, tc.def))
			if unsupported != tc.unsupported {
				t.Errorf("unsupported %q, want %q", unsupported, tc.unsupported)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}
