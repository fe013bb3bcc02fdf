package plan_test

import (
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// TestUpcoming: what the pages and the API's nextExecutionTime show is
// what the engine will run.
func TestUpcoming(t *testing.T) {
	rows := []struct {
		name     string
		props    string
		status   jobdef.State
		schedule bool
		base     string
		next     string
		sched    int64
		n        int
		want     string
	}{
		{name: "planned: the next run, then the rule", props: `,"recurrence":{"frequency":"hour"}`, base: "2026-03-01T09:30:00Z",
			next: "2026-03-01T11:30:00Z", n: 3, want: "2026-03-01T11:30:00Z 2026-03-01T12:30:00Z 2026-03-01T13:30:00Z"},
		{name: "not yet planned: from the schedule base", props: `,"recurrence":{"frequency":"hour"}`, schedule: true,
			base: "2026-03-01T09:30:00Z", n: 2, want: "2026-03-01T09:30:00Z 2026-03-01T10:30:00Z"},
		{name: "count left", props: `,"recurrence":{"frequency":"hour","count":3}`, base: "2026-03-01T09:30:00Z",
			next: "2026-03-01T11:30:00Z", sched: 2, n: 5, want: "2026-03-01T11:30:00Z"},
		{name: "endTime", props: `,"recurrence":{"frequency":"hour","endTime":"2026-03-01T12:00:00Z"}`, base: "2026-03-01T09:30:00Z",
			next: "2026-03-01T10:30:00Z", n: 5, want: "2026-03-01T10:30:00Z 2026-03-01T11:30:00Z"},
		{name: "disabled: none", props: `,"recurrence":{"frequency":"hour"}`, status: jobdef.Disabled, base: "2026-03-01T09:30:00Z",
			n: 3, want: ""},
		{name: "completed: none", props: ``, status: jobdef.Completed, n: 3, want: ""},
		{name: "planned nothing: none", props: `,"recurrence":{"frequency":"hour"}`, base: "2026-03-01T09:30:00Z", n: 3, want: ""},
	}
	now := ts("2026-03-01T10:00:00Z")
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			st := plan.State{Status: r.status, NeedsSchedule: r.schedule, ScheduleBase: tp(r.base), NextRunAt: tp(r.next),
				ScheduledCount: r.sched}
			var got []string
			for _, at := range plan.Upcoming(st, recurrence.Spread{}, compiler(job(t, r.props)), now, r.n) {
				got = append(got, at.UTC().Format(time.RFC3339))
			}
			if g := strings.Join(got, " "); g != r.want {
				t.Errorf("got %q, want %q", g, r.want)
			}
		})
	}
}
