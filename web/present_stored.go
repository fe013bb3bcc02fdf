package web

import (
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// A stored job's definition read back for the pages: its zone, schedule
// in words, target and crontab line.

// StoredJob is a stored job's definition read back for display: nil Job
// and a Problem when it does not parse. The zero StoredJob is an
// unreadable one without a Problem.
type StoredJob struct {
	Job     *jobdef.Job
	Problem string
	// Cals are the calendars of the job's workspace (see With); nil when
	// not loaded, which is enough for jobs that exclude none.
	Cals recurrence.Calendars
}

// With returns the parsed job with the calendars of its workspace, which
// its description and next runs need when it excludes some.
func (p StoredJob) With(cals recurrence.Calendars) StoredJob {
	p.Cals = cals
	return p
}

// ParseStored reads a stored definition (secrets are never in it).
func ParseStored(def []byte) StoredJob {
	job, err := jobdef.ParseWith(def, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return StoredJob{Problem: "The stored definition of this job cannot be read: " + err.Error()}
	}
	return StoredJob{Job: job}
}

// Zone is the job's time zone, UTC for an unreadable one.
func (p StoredJob) Zone() *time.Location {
	if p.Job == nil {
		return time.UTC
	}
	return p.Job.Location()
}

// Describe is the plain-English schedule of the job as if scheduled from
// base (its schedule base, or its creation).
func (p StoredJob) Describe(base time.Time) string {
	if p.Job == nil {
		return "Unreadable definition"
	}
	rule, err := recurrence.CompileWith(p.Job, base, recurrence.Options{Calendars: p.Cals})
	if err != nil {
		return "Unreadable schedule"
	}
	return rule.Description()
}

// Target says what the job calls: "POST https://…", "Storage queue
// account/queue", "Service Bus topic ns/path".
func (p StoredJob) Target() string {
	if p.Job == nil || p.Job.Action == nil {
		return ""
	}
	a := p.Job.Action
	switch {
	case a.Request != nil:
		return a.Request.Method + " " + a.Request.URI
	case a.QueueMessage != nil:
		return "Storage queue " + a.QueueMessage.StorageAccount + "/" + a.QueueMessage.QueueName
	case a.ServiceBusMessage != nil && a.ServiceBusMessage.TopicPath != "":
		return "Service Bus topic " + a.ServiceBusMessage.Namespace + "/" + a.ServiceBusMessage.TopicPath
	case a.ServiceBusMessage != nil:
		return "Service Bus queue " + a.ServiceBusMessage.Namespace + "/" + a.ServiceBusMessage.QueueName
	}
	return a.Type
}

// ScheduleBase is where a job's schedule counts from: its schedule base,
// or its creation.
func ScheduleBase(base *time.Time, created time.Time) time.Time {
	if base != nil {
		return *base
	}
	return created
}

// Cron is the crontab line equivalent to the job's schedule (SPEC §13.7),
// "" when there is none.
func (p StoredJob) Cron() string {
	if p.Job == nil {
		return ""
	}
	line, _ := jobdef.CronOf(p.Job.Recurrence)
	return line
}
