package handlers

import (
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// nextOccurrences returns up to n next occurrences of a stored job as the
// engine will run them: the next run it scheduled (or, before it
// scheduled one, the rule's first occurrence from the schedule base),
// then the rule's following ones, no more than recurrence.count leaves.
// A job that is not enabled has none. cals are the calendars of the job's
// workspace (nil is enough for a job that excludes none).
func nextOccurrences(j *models.JobDetail, job *jobdef.Job, now time.Time, n int, cals recurrence.Calendars) []time.Time {
	if j.State != "enabled" || job == nil || n <= 0 {
		return nil
	}
	base := now
	if j.ScheduleBase != nil {
		base = *j.ScheduleBase
	}
	rule, err := recurrence.CompileWith(job, base, recurrence.Options{Calendars: cals})
	if err != nil {
		return nil
	}
	var first time.Time
	switch {
	case j.NeedsSchedule:
		t, ok := rule.Next(base.Add(-time.Second))
		if !ok {
			return nil
		}
		first = t
	case j.NextRunAt == nil:
		return nil
	default:
		first = *j.NextRunAt
	}
	if c := rule.Count(); c > 0 {
		n = min(n, c-int(j.ScheduledCount))
	}
	zone := job.Location()
	var out []time.Time
	for t, ok := first, true; ok && len(out) < n; t, ok = rule.Next(t) {
		out = append(out, t.In(zone))
	}
	return out
}
