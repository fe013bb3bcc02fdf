package recurrence

import (
	"fmt"
	"testing"
	"time"
)

// TestDaylightSavingCases holds the five classes of daylight-saving defects
// found by TestDifferential, each with the neighbours that made
// it fail, as rows of expected first occurrences. Every row is also checked
// against the reference model.
func TestDaylightSavingCases(t *testing.T) {
	tests := []struct {
		name  string
		start string // startTime, "" for none
		rec   string
		now   string
		want  []string
	}{
		// 1. A spring-forward day keeps an existing time that comes before
		// shifted ones: Lord Howe jumps 02:00 → 02:30, so 02:20 and 02:25 run
		// at 02:50 and 02:55, after 02:40, which exists.
		{"gap keeps earlier existing time, Lord Howe", "2024-10-05T00:00:00",
			`{"frequency":"day","timeZone":"Australia/Lord_Howe","schedule":{"hours":[2],"minutes":[20,25,40]}}`, "2024-10-05T00:00:00Z",
			[]string{"2024-10-06T02:40:00+11:00", "2024-10-06T02:50:00+11:00", "2024-10-06T02:55:00+11:00", "2024-10-07T02:20:00+11:00"}},
		{"gap keeps earlier existing time, Lord Howe, Windows name", "2024-10-05T00:00:00",
			`{"frequency":"day","timeZone":"Lord Howe Standard Time","schedule":{"hours":[2],"minutes":[20,25,40]}}`, "2024-10-05T00:00:00Z",
			[]string{"2024-10-06T02:40:00+11:00", "2024-10-06T02:50:00+11:00", "2024-10-06T02:55:00+11:00"}},
		// Chatham jumps 02:45 → 03:45: 03:00 and 03:15 run at 04:00 and 04:15, after 03:50.
		{"gap keeps earlier existing time, Chatham", "2024-09-28T00:00:00",
			`{"frequency":"day","timeZone":"Pacific/Chatham","schedule":{"hours":[3],"minutes":[0,15,50]}}`, "2024-09-28T00:00:00Z",
			[]string{"2024-09-29T03:50:00+13:45", "2024-09-29T04:00:00+13:45", "2024-09-29T04:15:00+13:45", "2024-09-30T03:00:00+13:45"}},
		// Every 25 minutes from 2024-10-05 00:00 within 02:xx: 01:50, 02:15,
		// 02:40 on 10-06; 02:15 does not exist and runs at 02:45, after 02:40.
		{"gap keeps earlier existing time, minute interval", "2024-10-05T00:00:00",
			`{"frequency":"minute","interval":25,"timeZone":"Australia/Lord_Howe","schedule":{"hours":[2]}}`, "2024-10-05T00:00:00Z",
			[]string{"2024-10-06T02:40:00+11:00", "2024-10-06T02:45:00+11:00", "2024-10-07T02:00:00+11:00", "2024-10-07T02:25:00+11:00"}},
		// A shifted time equal to an existing one runs once.
		{"gap merges a shifted time into an existing one", "2023-03-25T00:00:00",
			`{"frequency":"day","timeZone":"Europe/Berlin","schedule":{"hours":[2,3],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00", "2023-03-27T03:00:00+02:00"}},

		// 2. The last UTC day of leap years from 2040 on, where Go's
		// ZoneBounds reports a period that ended at the start of that day.
		{"leap year end, Berlin", "2040-12-30T01:30:00", `{"frequency":"day","timeZone":"Europe/Berlin"}`, "2040-12-29T00:00:00Z",
			[]string{"2040-12-30T01:30:00+01:00", "2040-12-31T01:30:00+01:00", "2041-01-01T01:30:00+01:00"}},
		{"leap year end, Chicago", "2044-12-30T01:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2044-12-29T00:00:00Z",
			[]string{"2044-12-30T01:30:00-06:00", "2044-12-31T01:30:00-06:00", "2045-01-01T01:30:00-06:00"}},
		{"leap year end, Sydney", "2048-12-30T12:00:00", `{"frequency":"day","timeZone":"Australia/Sydney"}`, "2048-12-29T00:00:00Z",
			[]string{"2048-12-30T12:00:00+11:00", "2048-12-31T12:00:00+11:00", "2049-01-01T12:00:00+11:00"}},
		{"leap year end, St Johns", "2052-12-31T18:00:00", `{"frequency":"hour","interval":2,"timeZone":"America/St_Johns"}`, "2052-12-29T00:00:00Z",
			[]string{"2052-12-31T18:00:00-03:30", "2052-12-31T20:00:00-03:30", "2052-12-31T22:00:00-03:30"}},
		{"leap year end, London hourly schedule", "2068-12-31T00:00:00",
			`{"frequency":"hour","timeZone":"Europe/London","schedule":{"hours":[0,12,23],"minutes":[30]}}`, "2068-12-30T00:00:00Z",
			[]string{"2068-12-31T00:30:00Z", "2068-12-31T12:30:00Z", "2068-12-31T23:30:00Z", "2069-01-01T00:30:00Z"}},

		// 3. No startTime, created during the repeated hour: the first run is
		// at creation (the anchor is an instant, here the second 01:30).
		{"created in repeated hour, London", "", `{"frequency":"day","timeZone":"Europe/London"}`, "2026-10-25T01:30:00Z",
			[]string{"2026-10-25T01:30:00Z", "2026-10-26T01:30:00Z"}},
		{"created in repeated hour, Chicago weekly", "", `{"frequency":"week","timeZone":"America/Chicago"}`, "2019-11-03T07:30:00Z",
			[]string{"2019-11-03T01:30:00-06:00", "2019-11-10T01:30:00-06:00"}},
		{"created in repeated hour, Berlin monthly", "", `{"frequency":"month","timeZone":"Europe/Berlin"}`, "2017-10-29T01:52:38Z",
			[]string{"2017-10-29T02:52:38+01:00", "2017-11-29T02:52:38+01:00"}},
		{"created in first pass of repeated hour", "", `{"frequency":"day","timeZone":"Europe/London"}`, "2026-10-25T00:30:00Z",
			[]string{"2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00Z"}},

		// 4. startTime in the second pass of the repeated hour: the run at
		// startTime is kept ("at startTime, then on").
		{"start in second pass, Chicago", "2019-11-03T01:30:00-06:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-11-03T00:00:00Z",
			[]string{"2019-11-03T01:30:00-06:00", "2019-11-04T01:30:00-06:00"}},
		{"start in first pass, Chicago", "2019-11-03T01:30:00-05:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-11-03T00:00:00Z",
			[]string{"2019-11-03T01:30:00-05:00", "2019-11-04T01:30:00-06:00"}},
		{"start in second pass, Lord Howe half hour", "2024-04-07T01:45:00+10:30", `{"frequency":"day","timeZone":"Australia/Lord_Howe"}`, "2024-04-06T00:00:00Z",
			[]string{"2024-04-07T01:45:00+10:30", "2024-04-08T01:45:00+10:30"}},
		{"start in second pass with schedule", "2024-11-03T01:30:00-03:30",
			`{"frequency":"day","timeZone":"America/St_Johns","schedule":{"hours":[1,3]}}`, "2024-11-02T16:00:00Z",
			[]string{"2024-11-03T01:30:00-03:30", "2024-11-03T03:30:00-03:30", "2024-11-04T01:30:00-03:30"}},

		// 5. Hour or minute frequency with a schedule, startTime right after
		// a gap: the shifted time is ≥ startTime, as with frequency day.
		{"start after gap, hourly", "2023-03-26T03:00:00",
			`{"frequency":"hour","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00"}},
		{"start after gap, minutely", "2023-03-26T03:00:00",
			`{"frequency":"minute","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00"}},
		{"start after gap, daily", "2023-03-26T03:00:00",
			`{"frequency":"day","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00"}},
		{"start after gap, hourly, Sydney", "2007-10-28T03:15:00+11:00",
			`{"frequency":"hour","timeZone":"Australia/Sydney","schedule":{"hours":[2],"minutes":[48]}}`, "2007-10-25T20:15:00Z",
			[]string{"2007-10-28T03:48:00+11:00", "2007-10-29T02:48:00+11:00"}},
		{"start after gap, shifted time before startTime", "2023-03-26T03:30:00",
			`{"frequency":"hour","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-27T02:00:00+02:00"}},

		// The other zones of the issue, with changes at midnight (Santiago,
		// Sao Paulo), no daylight saving (Kolkata), and Windows names.
		// Santiago jumps 00:00 → 01:00 on 2024-09-08; every 25 minutes from
		// 09-07 00:00 within hours 0 and 1 is 00:10, 00:35, 01:00, 01:25 …
		// on 09-08: 00:10 and 00:35 run at 01:10 and 01:35, after 01:00,
		// which exists (class 1).
		{"gap keeps earlier existing time, Santiago midnight", "2024-09-07T00:00:00",
			`{"frequency":"minute","interval":25,"timeZone":"America/Santiago","schedule":{"hours":[0,1]}}`, "2024-09-07T12:00:00Z",
			[]string{"2024-09-08T01:00:00-03:00", "2024-09-08T01:10:00-03:00", "2024-09-08T01:25:00-03:00", "2024-09-08T01:35:00-03:00", "2024-09-08T01:50:00-03:00"}},
		{"gap keeps earlier existing time, Chatham, Windows name", "2024-09-28T00:00:00",
			`{"frequency":"day","timeZone":"Chatham Islands Standard Time","schedule":{"hours":[3],"minutes":[0,15,50]}}`, "2024-09-28T00:00:00Z",
			[]string{"2024-09-29T03:50:00+13:45", "2024-09-29T04:00:00+13:45", "2024-09-29T04:15:00+13:45"}},
		// Class 2 in more zones and by Windows name.
		{"leap year end, Santiago", "2040-12-30T01:30:00", `{"frequency":"day","timeZone":"America/Santiago"}`, "2040-12-29T00:00:00Z",
			[]string{"2040-12-30T01:30:00-03:00", "2040-12-31T01:30:00-03:00", "2041-01-01T01:30:00-03:00"}},
		{"leap year end, Berlin, Windows name", "2040-12-30T01:30:00", `{"frequency":"day","timeZone":"W. Europe Standard Time"}`, "2040-12-29T00:00:00Z",
			[]string{"2040-12-30T01:30:00+01:00", "2040-12-31T01:30:00+01:00", "2041-01-01T01:30:00+01:00"}},
		{"leap year end, Lord Howe", "2060-12-31T09:15:00", `{"frequency":"week","timeZone":"Australia/Lord_Howe"}`, "2060-12-30T00:00:00Z",
			[]string{"2060-12-31T09:15:00+11:00", "2061-01-07T09:15:00+11:00"}},
		{"leap year end, Kolkata (no daylight saving)", "2040-12-30T01:30:00", `{"frequency":"day","timeZone":"Asia/Kolkata"}`, "2040-12-29T00:00:00Z",
			[]string{"2040-12-30T01:30:00+05:30", "2040-12-31T01:30:00+05:30", "2041-01-01T01:30:00+05:30"}},
		// Classes 3 and 4 at Santiago's midnight change (2024-04-07 00:00 →
		// 2024-04-06 23:00: the hour 23:00 of the 6th happens twice).
		{"created in repeated hour, Santiago", "", `{"frequency":"day","timeZone":"America/Santiago"}`, "2024-04-07T03:30:00Z",
			[]string{"2024-04-06T23:30:00-04:00", "2024-04-07T23:30:00-04:00"}},
		{"start in second pass, Santiago", "2024-04-06T23:30:00-04:00", `{"frequency":"day","timeZone":"America/Santiago"}`, "2024-04-06T00:00:00Z",
			[]string{"2024-04-06T23:30:00-04:00", "2024-04-07T23:30:00-04:00"}},
		{"created in repeated hour, London, Windows name", "", `{"frequency":"day","timeZone":"GMT Standard Time"}`, "2026-10-25T01:30:00Z",
			[]string{"2026-10-25T01:30:00Z", "2026-10-26T01:30:00Z"}},
		{"start in second pass, Chicago, Windows name", "2019-11-03T01:30:00-06:00", `{"frequency":"day","timeZone":"Central Standard Time"}`, "2019-11-03T00:00:00Z",
			[]string{"2019-11-03T01:30:00-06:00", "2019-11-04T01:30:00-06:00"}},
		{"start in second pass, Sao Paulo 2019", "2019-02-16T23:15:00-03:00", `{"frequency":"day","timeZone":"America/Sao_Paulo"}`, "2019-02-16T12:00:00Z",
			[]string{"2019-02-16T23:15:00-03:00", "2019-02-17T23:15:00-03:00"}},
		// Class 5 at midnight changes and by Windows name.
		{"start after gap, hourly, Sao Paulo midnight", "2018-11-04T01:00:00",
			`{"frequency":"hour","timeZone":"America/Sao_Paulo","schedule":{"hours":[0],"minutes":[0]}}`, "2018-11-03T12:00:00Z",
			[]string{"2018-11-04T01:00:00-02:00", "2018-11-05T00:00:00-02:00"}},
		{"start after gap, minutely, Santiago midnight", "2024-09-08T01:00:00",
			`{"frequency":"minute","interval":20,"timeZone":"America/Santiago","schedule":{"hours":[0]}}`, "2024-09-07T12:00:00Z",
			[]string{"2024-09-08T01:00:00-03:00", "2024-09-08T01:20:00-03:00", "2024-09-08T01:40:00-03:00", "2024-09-09T00:00:00-03:00"}},
		{"start after gap, hourly, Windows name", "2023-03-26T03:00:00",
			`{"frequency":"hour","timeZone":"W. Europe Standard Time","schedule":{"hours":[2],"minutes":[0]}}`, "2023-03-25T12:00:00Z",
			[]string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00"}},
		{"no daylight saving, Kolkata", "2024-10-05T02:30:00",
			`{"frequency":"hour","interval":5,"timeZone":"Asia/Kolkata","schedule":{"minutes":[30]}}`, "2024-10-05T00:00:00Z",
			[]string{"2024-10-05T07:30:00+05:30", "2024-10-05T12:30:00+05:30"}},

		// The SPEC §2 reference (America/Chicago, 2019).
		{"SPEC reference 01:30", "2019-03-09T01:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-09T07:30:00Z", "2019-03-10T07:30:00Z", "2019-03-11T06:30:00Z"}},
		{"SPEC reference 02:30", "2019-03-09T02:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-09T08:30:00Z", "2019-03-10T08:30:00Z", "2019-03-11T07:30:00Z"}},
		{"SPEC reference 01:30 fall", "2019-11-02T01:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-11-01T00:00:00Z",
			[]string{"2019-11-02T06:30:00Z", "2019-11-03T06:30:00Z", "2019-11-04T07:30:00Z"}},
		{"SPEC reference 02:30 fall", "2019-11-02T02:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-11-01T00:00:00Z",
			[]string{"2019-11-02T07:30:00Z", "2019-11-03T08:30:00Z", "2019-11-04T08:30:00Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := jobJSON(tc.start, tc.rec)
			got := takeN(t, js, tc.now, len(tc.want))
			if !sameInstants(t, got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if msg := compareWithReference(t, diffCase{json: js, now: mustTime(t, tc.now)}, 10); msg != "" {
				t.Errorf("reference: %s", msg)
			}
		})
	}
}

// TestDaylightSavingEveryZone compares the core with the reference around
// both transitions of every zone of the differential test, in 2024 and in
// 2044 (past the zones' explicit transitions, where Go extends them by
// rule), for schedules whose times fall in the gap and the repeated hour,
// and start times before, inside and after them.
func TestDaylightSavingEveryZone(t *testing.T) {
	schedules := []func(zone string, h int) string{
		func(z string, h int) string {
			return fmt.Sprintf(`{"frequency":"day","timeZone":%q,"schedule":{"hours":[%d],"minutes":[0,15,30,45]}}`, z, h)
		},
		func(z string, h int) string {
			return fmt.Sprintf(`{"frequency":"day","timeZone":%q,"schedule":{"hours":[%d,%d],"minutes":[10,40]}}`, z, h, (h+1)%24)
		},
		func(z string, h int) string {
			return fmt.Sprintf(`{"frequency":"hour","timeZone":%q,"schedule":{"hours":[%d],"minutes":[5,35]}}`, z, h)
		},
		func(z string, h int) string {
			return fmt.Sprintf(`{"frequency":"minute","interval":20,"timeZone":%q,"schedule":{"hours":[%d]}}`, z, h)
		},
		func(z string, h int) string {
			return fmt.Sprintf(`{"frequency":"week","timeZone":%q,"schedule":{"hours":[%d],"minutes":[30]}}`, z, h)
		},
		func(z string, _ int) string { return fmt.Sprintf(`{"frequency":"day","timeZone":%q}`, z) },
	}
	rows := 0
	for _, zone := range dstZones {
		loc := mustParse(t, jobJSON("", `{"frequency":"day","timeZone":"`+zone+`"}`)).Location()
		for _, year := range []int{2024, 2044} {
			ts := transitions(loc, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC))
			for _, tr := range ts {
				before := tr.Add(-time.Second).In(loc) // the wall clock just before the change
				for _, sch := range schedules {
					rec := sch(zone, before.Hour())
					for _, d := range []time.Duration{-3 * time.Hour, -40 * time.Minute, 0, 20 * time.Minute, 50 * time.Minute} {
						at := tr.Add(d)
						for _, start := range []string{"", at.In(loc).Format("2006-01-02T15:04:05"), at.In(loc).Format(time.RFC3339)} {
							now := at.Add(-time.Hour)
							if start == "" {
								now = at
							}
							rows++
							c := diffCase{json: jobJSON(start, rec), now: now}
							if msg := compareWithReference(t, c, 12); msg != "" {
								t.Errorf("%s: %s", zone, msg)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d rows", rows)
}

// TestWallInstant checks the instant API answers show for a wall-clock
// startTime: the same rule as the occurrences, where time.Date's choice in a
// repeated hour is not guaranteed (Go picks the second 01:45 in Lord Howe).
func TestWallInstant(t *testing.T) {
	tests := []struct{ zone, wall, want string }{
		{"Europe/Berlin", "2026-03-29T02:30:00", "2026-03-29T03:30:00+02:00"},   // gap
		{"America/Chicago", "2019-11-03T01:30:00", "2019-11-03T01:30:00-05:00"}, // repeated: the first
		{"Australia/Lord_Howe", "2024-04-07T01:45:00", "2024-04-07T01:45:00+11:00"},
		{"Australia/Lord_Howe", "2024-10-06T02:15:00", "2024-10-06T02:45:00+11:00"},
		{"Europe/Berlin", "2040-12-31T01:30:00.25", "2040-12-31T01:30:00.25+01:00"}, // leap year end
		{"UTC", "2024-05-01T08:00:00", "2024-05-01T08:00:00Z"},
	}
	for _, tc := range tests {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		wall, err := time.Parse("2006-01-02T15:04:05.999999999", tc.wall)
		if err != nil {
			t.Fatal(err)
		}
		if got := WallInstant(wall, loc).Format(time.RFC3339Nano); got != tc.want {
			t.Errorf("%s %s: got %s, want %s", tc.zone, tc.wall, got, tc.want)
		}
	}
}
