package plan_test

import (
	"testing"
	"time"

	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// TestDaylightSavingReproducers runs the five daylight-saving reproducers
// of the recurrence core (TestDaylightSavingCases) through the planner, as the engine schedules a job created (or enabled)
// at now: the first run Decide plans and the runs Upcoming lists (pages and
// nextExecutionTime) are those of SPEC §2, the planner resolving no local
// time of its own.
func TestDaylightSavingReproducers(t *testing.T) {
	rows := []struct {
		name, props, now string
		want             []string
	}{
		{"1. a spring-forward day keeps an existing time before shifted ones",
			`,"startTime":"2024-10-05T00:00:00","recurrence":{"frequency":"day","timeZone":"Australia/Lord_Howe","schedule":{"hours":[2],"minutes":[20,25,40]}}`,
			"2024-10-05T00:00:00Z", []string{"2024-10-06T02:40:00+11:00", "2024-10-06T02:50:00+11:00", "2024-10-06T02:55:00+11:00"}},
		{"2. 31 December of a leap year from 2040",
			`,"startTime":"2040-12-30T01:30:00","recurrence":{"frequency":"day","timeZone":"Europe/Berlin"}`,
			"2040-12-29T00:00:00Z", []string{"2040-12-30T01:30:00+01:00", "2040-12-31T01:30:00+01:00", "2041-01-01T01:30:00+01:00"}},
		{"3. created in the repeated hour: runs at creation",
			`,"recurrence":{"frequency":"day","timeZone":"Europe/London"}`,
			"2026-10-25T01:30:00Z", []string{"2026-10-25T01:30:00Z", "2026-10-26T01:30:00Z"}},
		{"4. startTime in the second pass: runs at startTime",
			`,"startTime":"2019-11-03T01:30:00-06:00","recurrence":{"frequency":"day","timeZone":"America/Chicago"}`,
			"2019-11-03T00:00:00Z", []string{"2019-11-03T01:30:00-06:00", "2019-11-04T01:30:00-06:00"}},
		{"5. hourly schedule, startTime right after a gap",
			`,"startTime":"2023-03-26T03:00:00","recurrence":{"frequency":"hour","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[0]}}`,
			"2023-03-25T12:00:00Z", []string{"2023-03-26T03:00:00+02:00", "2023-03-27T02:00:00+02:00"}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			j := job(t, r.props)
			now := ts(r.now)
			st := plan.State{NeedsSchedule: true, ScheduleBase: &now}
			d, err := plan.Decide(st, plan.Policy{}, compiler(j), now)
			if err != nil {
				t.Fatal(err)
			}
			if d.Next == nil || !d.Next.Equal(ts(r.want[0])) {
				t.Errorf("Decide: next %s, want %s", fmtT(d.Next), r.want[0])
			}
			got := plan.Upcoming(st, recurrence.Spread{}, compiler(j), now, len(r.want))
			if len(got) != len(r.want) {
				t.Fatalf("Upcoming: got %v, want %v", got, r.want)
			}
			for i, w := range r.want {
				if !got[i].Equal(ts(w)) {
					t.Errorf("Upcoming #%d: got %s, want %s", i, got[i].Format(time.RFC3339), w)
				}
			}
		})
	}
}
