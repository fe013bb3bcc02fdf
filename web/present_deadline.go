package web

import (
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/notifydef"
)

// JobDeadlineView is the job page's deadline block (SPEC §17.2): what the
// job's deadline says, and its latest deadlineMissed and slowRun events.
type JobDeadlineView struct {
	// URL is the block as a fragment (JobDeadlinePath), which refreshes
	// itself every 30 s and with the history (event sked-history-changed):
	// an event is raised at the deadline's moment, not only when a run
	// ends.
	URL string
	// SucceedWithin and MaxDuration say each part ("" when not set):
	// "Must succeed within 2 hours of each run's due time".
	SucceedWithin, MaxDuration string
	Events                     []DeadlineEventRow
}

// DeadlineEventRow is one event of the block.
type DeadlineEventRow struct {
	// Type is deadlineMissed or slowRun; Text says what happened.
	Type string
	At   Instant
	Text string
}

// NewJobDeadlineView is the deadline block of a job with definition job
// (nil when the job has no deadline and no event to show) and its
// latest deadline events, in the job's zone loc at now.
func NewJobDeadlineView(job *jobdef.Job, evs []models.DeadlineEvent, loc *time.Location, now time.Time) *JobDeadlineView {
	v := &JobDeadlineView{}
	if job != nil && job.Deadline != nil {
		if d := job.Deadline.SucceedWithin; d > 0 {
			v.SucceedWithin = "Must succeed within " + SpanText(d) + " of each run's due time (" + jobdef.FormatISODuration(d) + ")"
		}
		if d := job.Deadline.MaxDuration; d > 0 {
			v.MaxDuration = "Alert if a run takes longer than " + SpanText(d) + " (" + jobdef.FormatISODuration(d) + ")"
		}
	}
	for _, e := range evs {
		row := DeadlineEventRow{Type: string(e.Type), At: InstantIn(e.At, loc, now)}
		occ := e.ExpectedTime.In(loc).Format("Mon 2 Jan 15:04")
		switch e.Type {
		case notifydef.DeadlineMissed:
			row.Text = "The run of " + occ + " had not succeeded by " + e.DeadlineAt.In(loc).Format("Mon 2 Jan 15:04")
			if e.Skipped {
				row.Text += " (it was skipped)"
			}
		case notifydef.SlowRun:
			row.Text = "An attempt of the run of " + occ + " (" + string(e.Action) + ") was still running " +
				SpanText(e.At.Sub(e.StartedAt)) + " after it started"
		}
		v.Events = append(v.Events, row)
	}
	if v.SucceedWithin == "" && v.MaxDuration == "" && len(v.Events) == 0 {
		return nil
	}
	return v
}
