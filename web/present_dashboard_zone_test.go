package web

import (
	"testing"
	"time"

	"sked/models"
)

// TestDashboardInUserZone shows the activity chart and the failure times
// in the user's zone, and keeps UTC hour buckets under a :30 offset.
func TestDashboardInUserZone(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 30, 0, 0, time.UTC)
	from := ActivityFrom(now)
	failures := []models.HistoryWithJob{{HistoryEntry: models.HistoryEntry{StartTime: time.Date(2026, 12, 24, 11, 15, 0, 0, time.UTC),
		ActionName: models.MainAction, Status: models.StatusFailed}, JobName: "nightly", Collection: "jc", ResourceGroup: "rg", WorkspaceID: "w"}}
	buckets := []models.HistoryBucket{{Bucket: 0, Status: models.StatusFailed, Count: 1}}
	load := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	for _, tc := range []struct {
		zone                          *time.Location
		caption, failure, tick, label string
	}{
		{time.UTC, "Executions in the last 24 hours (UTC)", "Thu 24 Dec 2026 11:15:00 UTC", "13:00", "13:00–14:00 UTC: 1 execution (1 Failed)"},
		{nil, "Executions in the last 24 hours (UTC)", "Thu 24 Dec 2026 11:15:00 UTC", "13:00", "13:00–14:00 UTC: 1 execution (1 Failed)"},
		{load("Europe/Berlin"), "Executions in the last 24 hours (Europe/Berlin)", "Thu 24 Dec 2026 12:15:00 CET", "14:00",
			"14:00–15:00 Europe/Berlin: 1 execution (1 Failed)"},
		{load("Asia/Kolkata"), "Executions in the last 24 hours (Asia/Kolkata)", "Thu 24 Dec 2026 16:45:00 IST", "18:30",
			"18:30–19:30 Asia/Kolkata: 1 execution (1 Failed)"},
	} {
		name := "nil"
		if tc.zone != nil {
			name = tc.zone.String()
		}
		t.Run(name, func(t *testing.T) {
			d := NewDashboard(nil, nil, failures, buckets, from, now, tc.zone)
			if d.Activity.Caption != tc.caption {
				t.Errorf("caption %q, want %q", d.Activity.Caption, tc.caption)
			}
			if got := d.Failures[0].At.Local; got != tc.failure {
				t.Errorf("failure time %q, want %q", got, tc.failure)
			}
			if got := d.Activity.XTicks[0].Text; got != tc.tick {
				t.Errorf("first x tick %q, want %q", got, tc.tick)
			}
			if got := d.Activity.Bars[0].Label; got != tc.label {
				t.Errorf("first bar %q, want %q", got, tc.label)
			}
		})
	}
}
