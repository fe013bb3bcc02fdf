package plan

import (
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// Upcoming returns up to n next occurrences of a job in state st as the
// engine will run them: the next run it planned (or, before it planned
// one, the rule's first occurrence from the schedule base, now when there
// is none), then the rule's following ones, no more than recurrence.count
// leaves. A job that is not enabled, or whose rule does not compile, has
// none. The times are when the occurrences are due: as the rule gives them
// (in the job's zone), shifted by the job's spread sp (SPEC §16.1; the zero
// Spread for a job without recurrence.window).
func Upcoming(st State, sp recurrence.Spread, compile Compile, now time.Time, n int) []time.Time {
	if (st.Status != "" && st.Status != jobdef.Enabled) || n <= 0 {
		return nil
	}
	base := now
	if st.ScheduleBase != nil {
		base = *st.ScheduleBase
	}
	rule, err := compile(base)
	if err != nil {
		return nil
	}
	var first time.Time
	switch {
	case st.NeedsSchedule:
		t, ok := rule.Next(base.Add(-time.Second))
		if !ok {
			return nil
		}
		first = t
	case st.NextRunAt == nil:
		return nil
	default:
		first = sp.Nominal(rule, *st.NextRunAt)
	}
	if c := rule.Count(); c > 0 {
		n = min(n, c-int(st.ScheduledCount))
	}
	var out []time.Time
	for t, ok := first, true; ok && len(out) < n; t, ok = rule.Next(t) {
		out = append(out, sp.Due(t))
	}
	return out
}
