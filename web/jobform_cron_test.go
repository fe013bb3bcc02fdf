package web

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
	"time"

	"sked/models/jobdef"
)

func TestFillFormFromCron(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, line, err string
		want            []any
	}{
		{"weekdays at 05:15", "15 5 * * 1-5", "", []any{"week", "1", []int{15}, []int{5}, []string{"monday", "tuesday", "wednesday", "thursday", "friday"}, "2026-12-24T00:00"}},
		{"every minute shows as hour", "* * * * *", "", []any{"hour", "1", func() []int {
			var m []int
			for i := range 60 {
				m = append(m, i)
			}
			return m
		}(), []int(nil), []string(nil), "2026-12-24T00:00"}},
		{"counting back from the last day", "0 0 L-2 * *", "L-2 (counting back from the last day) can only be written in the JSON tab, as monthDays -3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cron, err := jobdef.ParseCron(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			f := JobForm{TimeZone: "UTC"}
			err = FillFormFromCron(&f, cron, now)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []any{f.Frequency, f.Interval, f.Minutes, f.Hours, f.WeekDays, f.StartTime}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCronInputMatchesRecurrenceCron fills the builder from cron lines
// pasted into the form and checks that the job it posts has the
// recurrence of the same line given as recurrence.cron.
func TestCronInputMatchesRecurrenceCron(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	get := `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}`
	recurrenceOf := func(t *testing.T, body []byte) string {
		t.Helper()
		job, err := jobdef.ParseWith(body, jobdef.Options{})
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		var props struct{ Recurrence json.RawMessage }
		if err := json.Unmarshal(job.MarshalProperties(jobdef.MarshalOptions{}), &props); err != nil {
			t.Fatal(err)
		}
		return string(props.Recurrence)
	}
	for _, line := range []string{"15 5 * * 1-5", "0 */6 * * *", "30 8 1,15 * *", "0 9 * * 5L", "0 0 L * *", "0 12 1 1,7 *",
		"CRON_TZ=Europe/Berlin 0 9 * * 1", "0 8 * * 1#2"} {
		t.Run(line, func(t *testing.T) {
			f := ReadJobForm(url.Values{"mode": {"form"}, "action_type": {"http"}, "method": {"GET"}, "uri": {"https://example.com/"},
				"cron": {line}})
			cron, err := jobdef.ParseCron(f.Cron)
			if err != nil {
				t.Fatal(err)
			}
			if err := FillFormFromCron(&f, cron, now); err != nil {
				t.Fatal(err)
			}
			quoted, _ := json.Marshal(line)
			got, want := recurrenceOf(t, f.JobJSON()), recurrenceOf(t, []byte(`{`+get+`,"recurrence":{"cron":`+string(quoted)+`}}`))
			if got != want {
				t.Errorf("recurrence\n got %s\nwant %s", got, want)
			}
		})
	}
}
