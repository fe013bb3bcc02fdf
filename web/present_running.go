package web

import (
	"fmt"
	"strconv"
	"time"

	"sked/models"
)

// RunningPollSeconds is how often the running-now page refreshes its
// table (htmx polling).
const RunningPollSeconds = 3

// NewRunningView is the running-now page of workspace ws at now: the
// attempts in flight, longest running first, their times in UTC (the
// jobs' zones differ); limit is how many the store was asked for (a full
// list says there may be more).
func NewRunningView(ws string, attempts []models.RunningAttempt, limit int, now time.Time) RunningView {
	v := RunningView{Workspace: ws, URL: RunningPath(ws), AsOf: InstantIn(now, time.UTC, now)}
	switch n := len(attempts); {
	case n == 0:
		v.Summary = "Nothing is running right now."
	case n >= limit:
		v.Summary = fmt.Sprintf("At least %s attempts are running.", FormatCount(n))
		v.More = fmt.Sprintf("Only the %s longest running are listed.", FormatCount(n))
	default:
		v.Summary = Plural(int64(n), "attempt is running.", "attempts are running.")
	}
	for _, a := range attempts {
		r := RunningRow{
			ID: strconv.FormatInt(a.ID, 10), Job: a.JobName, JobURL: JobPath(ws, a.ResourceGroup, a.Collection, a.JobName),
			Collection: a.ResourceGroup + " / " + a.Collection, Action: string(a.Action), Attempt: strconv.Itoa(a.Attempt),
			Occurrence: "#" + strconv.FormatInt(a.Occurrence, 10), Started: InstantIn(a.StartedAt, time.UTC, now),
			Elapsed: SpanText(now.Sub(a.StartedAt)), Late: SpanText(max(0, a.StartedAt.Sub(a.DueAt))), Instance: a.Instance,
		}
		if a.RerunOf != nil {
			r.RerunOf = fmt.Sprintf("re-run of entry %d", *a.RerunOf)
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}
