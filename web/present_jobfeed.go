package web

import (
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// The presenter of a job's iCalendar feed (SPEC §13.6): its next
// FeedMaxEvents occurrences, or those of the next FeedHorizon, whichever
// ends first.
const (
	FeedMaxEvents = 200
	FeedHorizon   = 400 * 24 * time.Hour
)

// NewJobFeed is the feed of j in row at now: next are its next runs (up to
// FeedMaxEvents), job its definition (nil when unreadable), page the
// absolute URL of its page and host the host that makes the events' UIDs.
func NewJobFeed(row *models.CollectionRow, j *models.JobDetail, job *jobdef.Job, next []time.Time, now time.Time, page, host string) JobFeed {
	f := JobFeed{Name: j.Name + " (" + row.Name + ")", Stamp: now}
	what, timeout := feedAction(job)
	for _, t := range next {
		if t.Sub(now) > FeedHorizon {
			break
		}
		f.Events = append(f.Events, FeedEvent{
			UID:   fmt.Sprintf("job-%d-%s@%s", j.ID, t.UTC().Format("20060102T150405Z"), host),
			Start: t, Duration: timeout, Summary: j.Name,
			Description: what + "\nJob page: " + page, URL: page,
		})
	}
	return f
}

// feedAction says what the job's action does (method and URL, or the
// queue) and its per-attempt timeout.
func feedAction(job *jobdef.Job) (string, time.Duration) {
	if job == nil || job.Action == nil {
		return "(unreadable definition)", time.Minute
	}
	a := job.Action
	switch {
	case a.Request != nil:
		return a.Request.Method + " " + a.Request.URI, a.Timeout
	case a.QueueMessage != nil:
		return "Storage queue " + a.QueueMessage.QueueName, a.Timeout
	case a.ServiceBusMessage != nil:
		if a.ServiceBusMessage.TopicPath != "" {
			return "Service Bus topic " + a.ServiceBusMessage.TopicPath, a.Timeout
		}
		return "Service Bus queue " + a.ServiceBusMessage.QueueName, a.Timeout
	}
	return a.Type, a.Timeout
}
