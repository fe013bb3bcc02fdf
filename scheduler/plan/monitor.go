package plan

import (
	"fmt"
	"strings"
	"time"

	"sked/models/monitordef"
	"sked/models/problem"
	"sked/scheduler/recurrence"
)

// MonitorRule compiles the schedule of heartbeat monitor m anchored at
// anchor (its DTSTART) with the workspace's calendars cals, as a job's
// schedule is compiled: its expected occurrences are the rule's Next
// after the monitor's checked-through time. A calendar it excludes that
// cals lacks is a *problem.List naming schedule.calendars.exclude[i].
func MonitorRule(m *monitordef.Monitor, anchor time.Time, cals recurrence.Calendars) (*recurrence.Rule, error) {
	r, err := recurrence.CompileWith(m.Job(anchor), anchor, recurrence.Options{Calendars: cals})
	if err != nil {
		if l := problem.As(err); l != nil {
			out := &problem.List{}
			for _, p := range l.Problems {
				out.Add("schedule"+strings.TrimPrefix(p.Path, "recurrence"), p.Message)
			}
			return nil, out
		}
		return nil, fmt.Errorf("plan: monitor rule: %w", err)
	}
	return r, nil
}

// MonitorExpected returns up to n expected occurrences of rule strictly
// after after, in order.
func MonitorExpected(rule *recurrence.Rule, after time.Time, n int) []time.Time {
	var out []time.Time
	t := after
	for len(out) < n {
		next, ok := rule.Next(t)
		if !ok {
			break
		}
		out = append(out, next)
		t = next
	}
	return out
}

// MonitorStatus is the state of a monitor as pages and answers show it
// (SPEC §17.3), from its stored status (new, up, down), whether it is
// paused, its next undecided occurrence next (zero: none), the grace,
// its last success ping (zero: none) and now: paused; down; late when
// next has passed (within its grace) and no success ping came since
// next − grace; else the stored status (new or up).
func MonitorStatus(stored string, paused bool, next time.Time, grace time.Duration, lastSuccess, now time.Time) monitordef.Status {
	switch {
	case paused:
		return monitordef.StatusPaused
	case stored == string(monitordef.StatusDown):
		return monitordef.StatusDown
	case !next.IsZero() && !now.Before(next) && (lastSuccess.IsZero() || lastSuccess.Before(next.Add(-grace))):
		return monitordef.StatusLate
	case stored == string(monitordef.StatusUp):
		return monitordef.StatusUp
	}
	return monitordef.StatusNew
}
