package forecast

import (
	"testing"
	"time"
)

// TestDayStart checks the bounds of the days the month view counts runs
// in: 00:00 of the zone's wall clock by the rule the jobs run by, also on
// days whose midnight daylight saving skips or repeats.
func TestDayStart(t *testing.T) {
	for _, tc := range []struct {
		name, zone string
		y          int
		m          time.Month
		d          int
		want       string
	}{
		{"an ordinary day", "Europe/Berlin", 2024, time.March, 31, "2024-03-31T00:00:00+01:00"},
		{"the day after a spring-forward night", "Europe/Berlin", 2024, time.April, 1, "2024-04-01T00:00:00+02:00"},
		{"midnight skipped, Santiago", "America/Santiago", 2024, time.September, 8, "2024-09-08T01:00:00-03:00"},
		{"midnight skipped, Sao Paulo", "America/Sao_Paulo", 2018, time.November, 4, "2018-11-04T01:00:00-02:00"},
		{"midnight skipped, Havana", "America/Havana", 2024, time.March, 10, "2024-03-10T01:00:00-04:00"},
		{"after a repeated last hour, Santiago", "America/Santiago", 2024, time.April, 7, "2024-04-07T00:00:00-04:00"},
		{"normalised: the day after the 30th of April", "Europe/Berlin", 2024, time.April, 31, "2024-05-01T00:00:00+02:00"},
		{"the month after December", "America/Chicago", 2024, time.December + 1, 1, "2025-01-01T00:00:00-06:00"},
		{"the last day of a leap year from 2040", "Europe/Berlin", 2040, time.December, 31, "2040-12-31T00:00:00+01:00"},
		{"UTC", "UTC", 2024, time.May, 1, "2024-05-01T00:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			got := dayStart(tc.y, tc.m, tc.d, loc)
			if s := got.Format(time.RFC3339); s != tc.want {
				t.Errorf("dayStart(%d, %d, %d, %s) = %s, want %s", tc.y, tc.m, tc.d, tc.zone, s, tc.want)
			}
			// No earlier instant has the same date: the day starts there.
			if prev := got.Add(-time.Second).In(loc); prev.Day() == got.Day() && prev.Month() == got.Month() {
				t.Errorf("%s: the second before, %s, is already on that day", tc.zone, prev.Format(time.RFC3339))
			}
		})
	}
}
