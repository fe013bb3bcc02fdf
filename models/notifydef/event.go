package notifydef

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// Event is the JSON a channel receives (SPEC §13.3). The spec names both
// the job's name and its state object "job"; the name keeps "job" and
// the state object is "jobInfo".
type Event struct {
	Type EventType `json:"type"`
	// ID identifies the event; a webhook sends it as webhook-id, so that
	// a receiver can drop a duplicate delivery.
	ID            string      `json:"id"`
	Time          time.Time   `json:"time"`
	Workspace     string      `json:"workspace"`
	ResourceGroup string      `json:"resourceGroup,omitempty"`
	Collection    string      `json:"collection,omitempty"`
	Job           string      `json:"job,omitempty"`
	URL           string      `json:"url,omitempty"`
	Occurrence    *Occurrence `json:"occurrence,omitempty"`
	Attempt       *Attempt    `json:"attempt,omitempty"`
	JobInfo       *JobInfo    `json:"jobInfo,omitempty"`
	// Monitor names the heartbeat monitor of a monitor's event, and
	// MonitorInfo says more about it; both empty for a job's event.
	Monitor     string       `json:"monitor,omitempty"`
	MonitorInfo *MonitorInfo `json:"monitorInfo,omitempty"`
	// Count is the number of events a digest stands for (minInterval);
	// 0 for a single event.
	Count int `json:"count,omitempty"`
}

// Occurrence is the occurrence an event is about.
type Occurrence struct {
	ExpectedTime time.Time `json:"expectedTime"`
	RepeatCount  int       `json:"repeatCount"`
}

// Attempt is the attempt an event is about.
type Attempt struct {
	Action     string     `json:"action"`
	Status     string     `json:"status"`
	RetryCount int        `json:"retryCount"`
	Message    string     `json:"message,omitempty"`
	StartTime  *time.Time `json:"startTime,omitempty"`
	EndTime    *time.Time `json:"endTime,omitempty"`
}

// JobInfo is the job's state when the event happened.
type JobInfo struct {
	State       string `json:"state"`
	Description string `json:"description,omitempty"`
}

// MonitorInfo is what a monitor's event says beyond its name.
type MonitorInfo struct {
	Description string `json:"description,omitempty"`
	// ExpectedTime is the occurrence a monitorMissed is about.
	ExpectedTime *time.Time `json:"expectedTime,omitempty"`
	// StartTime is the start ping a slowRun is about.
	StartTime *time.Time `json:"startTime,omitempty"`
	// Message is a fail ping's body.
	Message string `json:"message,omitempty"`
}

// eventWords are the event types as a sentence says them.
var eventWords = map[EventType]string{
	AttemptFailed:       "an attempt failed",
	OccurrenceFaulted:   "an occurrence faulted",
	Recovered:           "recovered",
	Missed:              "missed a run",
	JobCompleted:        "completed",
	JobFaulted:          "is faulted",
	ConsecutiveFailures: "failed several times in a row",
	MonitorMissed:       "an expected ping did not come (down)",
	MonitorRecovered:    "pinged again (up)",
	MonitorFailed:       "reported a failure",
	SlowRun:             "started but did not finish in time",
	DeadlineMissed:      "did not succeed by its deadline",
	Test:                "test event",
}

// JobPath returns "group/collection/job", or "" for an event about no
// job (a test event).
func (e *Event) JobPath() string {
	if e.Job == "" {
		return ""
	}
	return e.ResourceGroup + "/" + e.Collection + "/" + e.Job
}

// Title is a one-line summary for people: "rg/jc/job: an occurrence
// faulted (3 times)"; a test event reads "Test event from Sked".
func (e *Event) Title() string {
	if e.Type == Test {
		return "Test event from Sked (workspace " + e.Workspace + ")"
	}
	words, ok := eventWords[e.Type]
	if !ok {
		words = string(e.Type)
	}
	subject := e.JobPath()
	if e.Monitor != "" {
		subject = "monitor " + e.Monitor
	}
	s := subject + ": " + words
	if e.Count > 1 {
		s += fmt.Sprintf(" (%d times)", e.Count)
	}
	return s
}

// Message is the attempt's message, or for a test event a sentence
// saying that the channel works; "" when there is none.
func (e *Event) Message() string {
	switch {
	case e.Type == Test:
		return "If you can read this, the channel works."
	case e.Attempt != nil:
		return e.Attempt.Message
	case e.MonitorInfo != nil:
		return e.MonitorInfo.Message
	}
	return ""
}

// NewEventID returns a new event id: "evt_" and 26 characters of
// base32 (128 random bits).
func NewEventID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("notifydef: new event id: %w", err)
	}
	return "evt_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)), nil
}
