package web

import (
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
