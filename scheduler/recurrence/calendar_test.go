package recurrence

import (
	"testing"
)

// calendarCase is one rule with its first occurrences for a job created at now.
type calendarCase struct {
	name, start, rec, now string
	want                  []string
}

// runCalendarCases checks each case's first len(want) occurrences (and that
// there are no more when want ends with "END").
func runCalendarCases(t *testing.T, cases []calendarCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			n := len(want)
			exact := n > 0 && want[n-1] == "END"
			if exact {
				want = want[:n-1]
				n = len(want) + 5
			}
			got := takeN(t, jobJSON(tc.start, tc.rec), tc.now, n)
			if !exact && len(got) > len(want) {
				got = got[:len(want)]
			}
			if !sameInstants(t, got, want) {
				t.Errorf("\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestMonthEndAndLeapYears covers the second exception of SPEC §2 (simple
// monthly/yearly recurrences clamp to the month's last day, from the anchor,
// without drift) and RRULE skipping with a schedule.
func TestMonthEndAndLeapYears(t *testing.T) {
	runCalendarCases(t, []calendarCase{
		{"monthly from Jan 31 (leap year)", "2024-01-31T09:00:00Z", `{"frequency":"month"}`, "2024-01-01T00:00:00Z",
			[]string{"2024-01-31T09:00:00Z", "2024-02-29T09:00:00Z", "2024-03-31T09:00:00Z", "2024-04-30T09:00:00Z", "2024-05-31T09:00:00Z", "2024-06-30T09:00:00Z"}},
		{"monthly from Jan 31 (common year)", "2023-01-31T09:00:00Z", `{"frequency":"month"}`, "2023-01-01T00:00:00Z",
			[]string{"2023-01-31T09:00:00Z", "2023-02-28T09:00:00Z", "2023-03-31T09:00:00Z"}},
		{"monthly from Jan 30, every 1: no drift after February", "2023-01-30T09:00:00Z", `{"frequency":"month"}`, "2023-01-01T00:00:00Z",
			[]string{"2023-01-30T09:00:00Z", "2023-02-28T09:00:00Z", "2023-03-30T09:00:00Z", "2023-04-30T09:00:00Z"}},
		{"monthly from Jan 31, created in the future of the anchor", "2023-01-31T09:00:00Z", `{"frequency":"month","interval":3}`, "2024-01-15T00:00:00Z",
			// Jan, Apr, Jul, Oct 2023; Jan 2024 (31st), Apr 2024 (30th)
			[]string{"2024-01-31T09:00:00Z", "2024-04-30T09:00:00Z", "2024-07-31T09:00:00Z"}},
		{"yearly from Feb 29", "2024-02-29T12:00:00Z", `{"frequency":"year"}`, "2024-01-01T00:00:00Z",
			[]string{"2024-02-29T12:00:00Z", "2025-02-28T12:00:00Z", "2026-02-28T12:00:00Z", "2027-02-28T12:00:00Z", "2028-02-29T12:00:00Z"}},
		{"monthDays 31 skips short months", "2024-01-01T09:00:00Z", `{"frequency":"month","schedule":{"monthDays":[31]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-01-31T09:00:00Z", "2024-03-31T09:00:00Z", "2024-05-31T09:00:00Z", "2024-07-31T09:00:00Z", "2024-08-31T09:00:00Z", "2024-10-31T09:00:00Z", "2024-12-31T09:00:00Z"}},
		{"schedule with hours only keeps the anchor day 31 (RRULE skips)", "2024-01-31T09:00:00Z", `{"frequency":"month","schedule":{"hours":[6]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-03-31T06:00:00Z", "2024-05-31T06:00:00Z"}},
		{"Feb 29 every year: leap years only", "2024-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[29]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-02-29T00:00:00Z", "2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"Feb 29 across 2100 (not a leap year)", "2096-03-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[29]}}`, "2096-03-01T00:00:00Z",
			[]string{"2104-02-29T00:00:00Z", "2108-02-29T00:00:00Z"}},
		{"year: monthDays alone use the anchor's month", "2024-03-10T07:30:00Z", `{"frequency":"year","schedule":{"monthDays":[15]}}`, "2024-03-01T00:00:00Z",
			[]string{"2024-03-15T07:30:00Z", "2025-03-15T07:30:00Z"}},
		{"year: last Friday of November", "2024-01-01T18:00:00Z", `{"frequency":"year","schedule":{"months":[11],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-11-29T18:00:00Z", "2025-11-28T18:00:00Z", "2026-11-27T18:00:00Z"}},
		{"year: months [1,7] on the first Monday", "2024-01-01T09:00:00Z", `{"frequency":"year","schedule":{"months":[7,1],"monthlyOccurrences":{"day":"Monday","Occurrence":1}}}`, "2024-01-01T10:00:00Z",
			[]string{"2024-07-01T09:00:00Z", "2025-01-06T09:00:00Z", "2025-07-07T09:00:00Z"}},
	})
}

// TestNegativeMonthDaysAndFifthWeekdays covers counting from the end of the
// month and weekdays that some months do not have.
func TestNegativeMonthDaysAndFifthWeekdays(t *testing.T) {
	runCalendarCases(t, []calendarCase{
		{"second-to-last day", "2024-01-01T00:00:00Z", `{"frequency":"month","schedule":{"monthDays":[-2],"hours":[0],"minutes":[0]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-01-30T00:00:00Z", "2024-02-28T00:00:00Z", "2024-03-30T00:00:00Z", "2024-04-29T00:00:00Z"}},
		{"-31: the 1st of 31-day months only", "2024-01-01T00:00:00Z", `{"frequency":"month","schedule":{"monthDays":[-31]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z", "2024-05-01T00:00:00Z", "2024-07-01T00:00:00Z", "2024-08-01T00:00:00Z"}},
		{"-29 in February: only leap years", "2023-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[-29]}}`, "2023-01-01T00:00:00Z",
			[]string{"2024-02-01T00:00:00Z", "2028-02-01T00:00:00Z"}},
		{"fifth Monday", "2024-01-01T09:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"monday","occurrence":5}]}}`, "2024-01-01T00:00:00Z",
			// Mondays in 2024 with a fifth: Jan 29, Apr 29, Jul 29, Sep 30, Dec 30.
			[]string{"2024-01-29T09:00:00Z", "2024-04-29T09:00:00Z", "2024-07-29T09:00:00Z", "2024-09-30T09:00:00Z", "2024-12-30T09:00:00Z"}},
		{"fifth-to-last Thursday (= first of 5)", "2024-01-01T09:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"thursday","occurrence":-5}]}}`, "2024-01-01T00:00:00Z",
			// Thursdays 2024: Feb 1..29 has five (1,8,15,22,29); May 2..30; Aug 1..29; Oct 3..31.
			[]string{"2024-02-01T09:00:00Z", "2024-05-02T09:00:00Z", "2024-08-01T09:00:00Z", "2024-10-03T09:00:00Z"}},
		{"every Friday of the month", "2024-05-01T09:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday"}]}}`, "2024-05-01T00:00:00Z",
			[]string{"2024-05-03T09:00:00Z", "2024-05-10T09:00:00Z", "2024-05-17T09:00:00Z", "2024-05-24T09:00:00Z", "2024-05-31T09:00:00Z", "2024-06-07T09:00:00Z"}},
		{"Friday the 13th (intersection)", "2024-01-01T09:00:00Z", `{"frequency":"month","schedule":{"monthDays":[13],"monthlyOccurrences":[{"day":"friday"}]}}`, "2024-01-01T00:00:00Z",
			// 2024: September and December; 2025: June.
			[]string{"2024-09-13T09:00:00Z", "2024-12-13T09:00:00Z", "2025-06-13T09:00:00Z"}},
		{"first and last day, every 2 months, negative and positive duplicate in Feb", "2024-01-01T00:00:00Z", `{"frequency":"month","interval":2,"schedule":{"monthDays":[1,-1,1]}}`, "2024-01-01T00:00:00Z",
			[]string{"2024-01-01T00:00:00Z", "2024-01-31T00:00:00Z", "2024-03-01T00:00:00Z", "2024-03-31T00:00:00Z", "2024-05-01T00:00:00Z"}},
	})
}

// TestIntervalAlignment covers weeks (Monday-first) with intervals 2 and 3
// and months with interval 5, counted from the anchor's period.
func TestIntervalAlignment(t *testing.T) {
	runCalendarCases(t, []calendarCase{
		// Anchor Wednesday 2024-05-01: its week runs Mon Apr 29 – Sun May 5.
		{"week/2 Monday and Friday", "2024-05-01T08:00:00Z", `{"frequency":"week","interval":2,"schedule":{"weekDays":["monday","friday"]}}`, "2024-04-01T00:00:00Z",
			[]string{"2024-05-03T08:00:00Z", "2024-05-13T08:00:00Z", "2024-05-17T08:00:00Z", "2024-05-27T08:00:00Z", "2024-05-31T08:00:00Z"}},
		{"week/3 Sunday and Monday (Sunday ends the week)", "2024-05-01T08:00:00Z", `{"frequency":"week","interval":3,"schedule":{"weekDays":["sunday","monday"]}}`, "2024-04-01T00:00:00Z",
			[]string{"2024-05-05T08:00:00Z", "2024-05-20T08:00:00Z", "2024-05-26T08:00:00Z", "2024-06-10T08:00:00Z", "2024-06-16T08:00:00Z"}},
		{"week/3 far in the future of the anchor", "2024-05-01T08:00:00Z", `{"frequency":"week","interval":3,"schedule":{"weekDays":["sunday","monday"]}}`, "2034-05-01T00:00:00Z",
			// 2034-05-01 is a Monday, 522 weeks after Apr 29 2024; 522 = 3·174.
			[]string{"2034-05-01T08:00:00Z", "2034-05-07T08:00:00Z", "2034-05-22T08:00:00Z"}},
		{"simple week/2 from a Sunday", "2024-05-05T10:00:00Z", `{"frequency":"week","interval":2}`, "2024-05-01T00:00:00Z",
			[]string{"2024-05-05T10:00:00Z", "2024-05-19T10:00:00Z", "2024-06-02T10:00:00Z"}},
		{"month/5 on the 1st and 15th", "2024-01-15T08:00:00Z", `{"frequency":"month","interval":5,"schedule":{"monthDays":[1,15]}}`, "2024-01-01T00:00:00Z",
			// Jan, Jun, Nov 2024, Apr, Sep 2025.
			[]string{"2024-01-15T08:00:00Z", "2024-06-01T08:00:00Z", "2024-06-15T08:00:00Z", "2024-11-01T08:00:00Z", "2024-11-15T08:00:00Z", "2025-04-01T08:00:00Z"}},
		{"month/5 six years on", "2024-01-15T08:00:00Z", `{"frequency":"month","interval":5,"schedule":{"monthDays":[1,15]}}`, "2030-01-01T00:00:00Z",
			// Month 72 after Jan 2024 is Jan 2030; aligned months are 70 (Nov 2029) and 75 (Apr 2030).
			[]string{"2030-04-01T08:00:00Z", "2030-04-15T08:00:00Z", "2030-09-01T08:00:00Z"}},
		{"day/548 (maximum)", "2024-01-01T00:00:00Z", `{"frequency":"day","interval":548}`, "2024-01-02T00:00:00Z",
			// 548 days after 2024-01-01: 366 to 2025-01-01, then 182 more (Jan–Jun is 181) → 2025-07-02.
			[]string{"2025-07-02T00:00:00Z"}},
		{"hour/5 with hours limit (wall-clock hours from the anchor's)", "2024-05-01T00:10:00Z", `{"frequency":"hour","interval":5,"schedule":{"hours":[10,15,20]}}`, "2024-05-01T00:00:00Z",
			// Hours 00, 05, 10, 15, 20 (May 1), 01, 06 … (May 2), … 04, 09, 14, 19 (May 5), 00, 05, 10 (May 6):
			// the pattern repeats every lcm(5, 24) = 120 hours.
			[]string{"2024-05-01T10:10:00Z", "2024-05-01T15:10:00Z", "2024-05-01T20:10:00Z", "2024-05-06T10:10:00Z"}},
		{"minute/7 with hours and minutes limits", "2024-05-01T00:00:00Z", `{"frequency":"minute","interval":7,"schedule":{"hours":[1],"minutes":[0,1,2,3,4,5,6]}}`, "2024-05-01T00:00:00Z",
			// Minute 63 of the day is 01:03 (63 = 7·9); then 01:03 every 7 days.
			[]string{"2024-05-01T01:03:00Z", "2024-05-02T01:05:00Z", "2024-05-03T01:00:00Z"}},
		{"minute/1000 simple (elapsed)", "2024-05-01T00:00:00Z", `{"frequency":"minute","interval":1000}`, "2024-05-01T00:00:00Z",
			[]string{"2024-05-01T00:00:00Z", "2024-05-01T16:40:00Z", "2024-05-02T09:20:00Z"}},
	})
}

// TestImpossibleSchedules checks that schedules that never occur end at once.
func TestImpossibleSchedules(t *testing.T) {
	runCalendarCases(t, []calendarCase{
		{"February 30", "2024-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[30]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"31st of February and April", "2024-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2,4],"monthDays":[31]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"31st every 12 months from February", "2024-02-10T00:00:00Z", `{"frequency":"month","interval":12,"schedule":{"monthDays":[31]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"fifth Friday that is the 13th", "2024-01-01T00:00:00Z", `{"frequency":"month","schedule":{"monthDays":[13],"monthlyOccurrences":[{"day":"friday","occurrence":5}]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"hour/24 at an hour the anchor never reaches", "2024-01-01T10:00:00Z", `{"frequency":"hour","interval":24,"schedule":{"hours":[5]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"minute/720 never at 06:00", "2024-01-01T00:00:00Z", `{"frequency":"minute","interval":720,"schedule":{"hours":[6]}}`, "2024-01-01T00:00:00Z", []string{"END"}},
		{"ends at year 9999", "9999-12-30T00:00:00Z", `{"frequency":"day"}`, "9999-12-30T00:00:00Z",
			[]string{"9999-12-30T00:00:00Z", "9999-12-31T00:00:00Z", "END"}},
	})
}

// TestStartTimeTable covers every cell of the start-time table of SPEC §2.
func TestStartTimeTable(t *testing.T) {
	const now = "2024-05-01T10:05:30Z"
	const sched = `{"frequency":"day","schedule":{"hours":[9,12]}}`
	runCalendarCases(t, []calendarCase{
		{"no start, no recurrence: once now", "", "", now, []string{"2024-05-01T10:05:30Z", "END"}},
		{"past start, no recurrence: once now", "2024-04-01T00:00:00Z", "", now, []string{"2024-05-01T10:05:30Z", "END"}},
		{"future start, no recurrence: once at start", "2024-06-01T09:00:00+02:00", "", now, []string{"2024-06-01T07:00:00Z", "END"}},
		{"start now, no recurrence: once at start", now, "", now, []string{"2024-05-01T10:05:30Z", "END"}},
		{"no start, simple: now then every interval", "", `{"frequency":"hour","interval":2}`, now,
			[]string{"2024-05-01T10:05:30Z", "2024-05-01T12:05:30Z", "2024-05-01T14:05:30Z"}},
		{"past start, simple: first anchor+k·interval ≥ now", "2024-04-30T09:00:00Z", `{"frequency":"hour","interval":5}`, now,
			// 09, 14, 19, 00, 05, 10 → 2024-05-01T10:00 < now → 15:00
			[]string{"2024-05-01T15:00:00Z", "2024-05-01T20:00:00Z"}},
		{"future start, simple: at start then on", "2024-05-03T07:00:00Z", `{"frequency":"day","interval":3}`, now,
			[]string{"2024-05-03T07:00:00Z", "2024-05-06T07:00:00Z"}},
		{"no start, schedule: now, then the schedule after now (minute from now)", "", sched, now,
			[]string{"2024-05-01T10:05:30Z", "2024-05-01T12:05:00Z", "2024-05-02T09:05:00Z"}},
		{"past start, schedule: first schedule occurrence ≥ now", "2024-04-01T07:30:00Z", sched, now,
			[]string{"2024-05-01T12:30:00Z", "2024-05-02T09:30:00Z"}},
		{"future start, schedule: first schedule occurrence ≥ start", "2024-05-10T07:00:00Z", sched, now,
			[]string{"2024-05-10T09:00:00Z", "2024-05-10T12:00:00Z"}},
		{"future start matching the schedule runs at start", "2024-05-10T09:00:00Z", sched, now,
			[]string{"2024-05-10T09:00:00Z", "2024-05-10T12:00:00Z"}},
		{"past start, schedule occurrence exactly now runs now", "2024-04-01T09:00:00Z", `{"frequency":"day","schedule":{"hours":[10],"minutes":[5]}}`, "2024-05-01T10:05:00Z",
			[]string{"2024-05-01T10:05:00Z", "2024-05-02T10:05:00Z"}},
		{"past start, simple occurrence exactly now runs now", "2024-04-01T10:05:00Z", `{"frequency":"day"}`, "2024-05-01T10:05:00Z",
			[]string{"2024-05-01T10:05:00Z", "2024-05-02T10:05:00Z"}},
		{"date-only start is 00:00 in the job's zone", "2024-05-10", `{"frequency":"day","timeZone":"Europe/Berlin"}`, now,
			[]string{"2024-05-09T22:00:00Z", "2024-05-10T22:00:00Z"}},
		{"start without offset is UTC without timeZone", "2024-05-10T09:00:00", `{"frequency":"day"}`, now,
			[]string{"2024-05-10T09:00:00Z"}},
		{"start with offset keeps its instant in another zone", "2024-05-10T09:00:00-04:00", `{"frequency":"day","timeZone":"Asia/Tokyo"}`, now,
			// 13:00Z = 22:00 in Tokyo, daily at 22:00 Tokyo.
			[]string{"2024-05-10T13:00:00Z", "2024-05-11T13:00:00Z"}},
	})
}

// TestCountAndEndTime covers count (from creation), endTime (inclusive,
// date-only = 00:00 in the zone) and both together.
func TestCountAndEndTime(t *testing.T) {
	const now = "2024-05-01T10:05:00Z"
	runCalendarCases(t, []calendarCase{
		{"count 3 counted from creation", "2024-04-01T08:00:00Z", `{"frequency":"day","count":3}`, now,
			[]string{"2024-05-02T08:00:00Z", "2024-05-03T08:00:00Z", "2024-05-04T08:00:00Z", "END"}},
		{"count 1 with no start and a schedule: only the run at creation", "", `{"frequency":"day","count":1,"schedule":{"hours":[9]}}`, now,
			[]string{"2024-05-01T10:05:00Z", "END"}},
		{"endTime inclusive", "2024-05-01T08:00:00Z", `{"frequency":"day","endTime":"2024-05-04T08:00:00Z"}`, now,
			[]string{"2024-05-02T08:00:00Z", "2024-05-03T08:00:00Z", "2024-05-04T08:00:00Z", "END"}},
		{"date-only endTime is 00:00", "2024-05-01T08:00:00Z", `{"frequency":"day","endTime":"2024-05-04"}`, now,
			[]string{"2024-05-02T08:00:00Z", "2024-05-03T08:00:00Z", "END"}},
		{"date-only endTime in the job's zone", "2024-05-01T23:30:00Z", `{"frequency":"day","endTime":"2024-05-04","timeZone":"Europe/Berlin"}`, now,
			// 01:30 Berlin daily; the end is 2024-05-03T22:00Z.
			[]string{"2024-05-01T23:30:00Z", "2024-05-02T23:30:00Z", "END"}},
		{"count ends first", "2024-05-01T08:00:00Z", `{"frequency":"day","count":2,"endTime":"2024-06-01"}`, now,
			[]string{"2024-05-02T08:00:00Z", "2024-05-03T08:00:00Z", "END"}},
		{"endTime ends first", "2024-05-01T08:00:00Z", `{"frequency":"day","count":20,"endTime":"2024-05-03T12:00:00Z"}`, now,
			[]string{"2024-05-02T08:00:00Z", "2024-05-03T08:00:00Z", "END"}},
		{"endTime in the past: nothing", "2024-04-01T08:00:00Z", `{"frequency":"day","endTime":"2024-04-10"}`, now, []string{"END"}},
		{"endTime in the past, no start, schedule: not even the run at creation", "", `{"frequency":"day","endTime":"2024-04-10","schedule":{"hours":[9]}}`, now, []string{"END"}},
		{"endTime before a future start", "2024-06-01T08:00:00Z", `{"frequency":"day","endTime":"2024-05-20"}`, now, []string{"END"}},
	})
}

// TestDaylightSaving covers the DST rules beyond the Chicago reference table.
func TestDaylightSaving(t *testing.T) {
	runCalendarCases(t, []calendarCase{
		// Europe/Berlin 2019: 03-31 02:00 CET → 03:00 CEST; 10-27 03:00 CEST → 02:00 CET.
		{"Berlin gap: 02:30 runs at 03:30 CEST", "2019-03-30T02:30:00", `{"frequency":"day","timeZone":"Europe/Berlin"}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-30T01:30:00Z", "2019-03-31T01:30:00Z", "2019-04-01T00:30:00Z"}},
		{"Berlin overlap: 02:30 runs once, first (CEST)", "2019-10-26T02:30:00", `{"frequency":"day","timeZone":"W. Europe Standard Time"}`, "2019-10-01T00:00:00Z",
			[]string{"2019-10-26T00:30:00Z", "2019-10-27T00:30:00Z", "2019-10-28T01:30:00Z"}},
		{"Chicago hourly schedule across the gap: 02:30 and 03:30 merge", "2019-03-10T00:00:00", `{"frequency":"hour","timeZone":"America/Chicago","schedule":{"minutes":[30]}}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-10T06:30:00Z", "2019-03-10T07:30:00Z", "2019-03-10T08:30:00Z", "2019-03-10T09:30:00Z"}},
		{"Chicago hourly schedule across the overlap: 01:30 once", "2019-11-03T00:00:00", `{"frequency":"hour","timeZone":"America/Chicago","schedule":{"minutes":[30]}}`, "2019-11-01T00:00:00Z",
			[]string{"2019-11-03T05:30:00Z", "2019-11-03T06:30:00Z", "2019-11-03T08:30:00Z", "2019-11-03T09:30:00Z"}},
		{"Chicago every 60 minutes is elapsed time", "2019-03-10T00:30:00", `{"frequency":"minute","interval":60,"timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-10T06:30:00Z", "2019-03-10T07:30:00Z", "2019-03-10T08:30:00Z", "2019-03-10T09:30:00Z"}},
		{"Chicago every hour is elapsed time in the overlap", "2019-11-03T00:30:00", `{"frequency":"hour","timeZone":"America/Chicago"}`, "2019-11-01T00:00:00Z",
			[]string{"2019-11-03T05:30:00Z", "2019-11-03T06:30:00Z", "2019-11-03T07:30:00Z", "2019-11-03T08:30:00Z"}},
		{"start inside the gap keeps 02:30 on later days", "2019-03-10T02:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z",
			[]string{"2019-03-10T08:30:00Z", "2019-03-11T07:30:00Z"}},
		{"created inside the overlap's second pass: 01:45 already ran", "2019-11-01T01:45:00", `{"frequency":"day","timeZone":"America/Chicago","schedule":{"hours":[1,2],"minutes":[15,45]}}`, "2019-11-03T07:20:00Z",
			// 07:20Z is 01:20 CST (second pass). 01:45 ran at 06:45Z (CDT). Next: 02:15 CST = 08:15Z.
			[]string{"2019-11-03T08:15:00Z", "2019-11-03T08:45:00Z", "2019-11-04T07:15:00Z"}},
		{"created inside the gap hour: shifted 02:45 comes before 03:15", "2019-03-01T00:00:00", `{"frequency":"day","timeZone":"America/Chicago","schedule":{"hours":[2,3],"minutes":[15,45]}}`, "2019-03-10T08:20:00Z",
			// 08:20Z is 03:20 CDT. 02:45 → 03:45 CDT = 08:45Z; 03:15 CDT (08:15Z) is past; 02:15 → 08:15Z past.
			// 03:45 CDT merges with the shifted 02:45.
			[]string{"2019-03-10T08:45:00Z", "2019-03-11T07:15:00Z"}},
		{"weekly in Sydney across April fall-back", "2024-04-01T02:30:00", `{"frequency":"week","timeZone":"AUS Eastern Standard Time"}`, "2024-03-01T00:00:00Z",
			// AEDT +11 until Sunday 2024-04-07 03:00 → AEST +10; Monday Apr 8 is already +10.
			[]string{"2024-03-31T15:30:00Z", "2024-04-07T16:30:00Z", "2024-04-14T16:30:00Z"}},
	})
}
