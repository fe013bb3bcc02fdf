package recurrence

import "sked/models/jobdef"

// deadlineWords is what a job's description says of its deadline (SPEC
// §17.2): ", must succeed within 2 hours", or "" without succeedWithin.
// maxDuration is about one attempt, not the schedule, and is left to the
// job's page.
func deadlineWords(d *jobdef.Deadline) string {
	if d == nil || d.SucceedWithin <= 0 {
		return ""
	}
	return ", must succeed within " + formatSpan(d.SucceedWithin)
}
