package notifydef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// EventType is what happened to a job that a rule can send.
type EventType string

// The event types of SPEC §13.3.
const (
	AttemptFailed       EventType = "attemptFailed"       // an attempt failed (a retry may follow)
	OccurrenceFaulted   EventType = "occurrenceFaulted"   // an occurrence failed after its retries
	Recovered           EventType = "recovered"           // the first success after a faulted occurrence
	Missed              EventType = "missed"              // a Postponed entry: skipped occurrences or concurrency
	JobCompleted        EventType = "jobCompleted"        // the job reached state completed
	JobFaulted          EventType = "jobFaulted"          // the job reached state faulted
	ConsecutiveFailures EventType = "consecutiveFailures" // the Nth faulted occurrence in a row
	// The events of heartbeat monitors (SPEC §17.3).
	MonitorMissed    EventType = "monitorMissed"    // an expected ping did not come within grace: the monitor is down
	MonitorRecovered EventType = "monitorRecovered" // a success ping ended a down state
	MonitorFailed    EventType = "monitorFailed"    // a fail ping
	// SlowRun is a monitor's start ping without a success within its
	// deadline.maxDuration, or a job's attempt still running
	// deadline.maxDuration after it started (SPEC §17.2).
	SlowRun EventType = "slowRun"
	// DeadlineMissed is a job's occurrence that had not succeeded
	// deadline.succeedWithin after its due time (SPEC §17.2).
	DeadlineMissed EventType = "deadlineMissed"
	// Test is the event of "send a test event"; no rule names it.
	Test EventType = "test"
)

// EventTypes are the event types a rule may name, in the order of SPEC
// §13.3.
var EventTypes = []EventType{AttemptFailed, OccurrenceFaulted, Recovered, Missed, JobCompleted, JobFaulted, ConsecutiveFailures,
	MonitorMissed, MonitorRecovered, MonitorFailed, SlowRun, DeadlineMissed}

// MonitorEvents are the event types a monitor raises; a rule scoped to a
// monitor names only these.
var MonitorEvents = []EventType{MonitorMissed, MonitorRecovered, MonitorFailed, SlowRun}

// Limits of a rule.
const (
	// MaxMinInterval bounds minInterval.
	MaxMinInterval = 7 * 24 * time.Hour
	// MaxThreshold bounds threshold.
	MaxThreshold = 1000
)

// Scope is what a rule watches: the whole workspace (all empty: its jobs
// and its monitors), a resource group, a collection of it, or one job of
// that collection, or one heartbeat monitor (Monitor, alone).
type Scope struct {
	ResourceGroup string `json:"resourceGroup,omitempty"`
	Collection    string `json:"collection,omitempty"`
	Job           string `json:"job,omitempty"`
	Monitor       string `json:"monitor,omitempty"`
}

// Matches reports whether a job at rg/collection/job is in the scope
// (names compared without regard to case); a monitor's scope holds no job.
func (s Scope) Matches(rg, collection, job string) bool {
	return s.Monitor == "" && (s.ResourceGroup == "" || strings.EqualFold(s.ResourceGroup, rg)) &&
		(s.Collection == "" || strings.EqualFold(s.Collection, collection)) &&
		(s.Job == "" || strings.EqualFold(s.Job, job))
}

// Rule is a parsed alert rule.
type Rule struct {
	// Channel names the workspace's channel the events go to.
	Channel string
	Scope   Scope
	// Events are the event types sent, without duplicates, in the order
	// given.
	Events []EventType
	// Threshold is N of consecutiveFailures (≥ 2); 0 without it.
	Threshold int
	// MinInterval throttles the rule per job; 0 (the default) sends every
	// event.
	MinInterval time.Duration
}

// Has reports whether the rule sends events of type t.
func (r *Rule) Has(t EventType) bool { return slices.Contains(r.Events, t) }

// ParseRule reads and validates an alert rule. Whether the channel
// exists is the caller's check. Every problem is reported at once in a
// *problem.List.
func ParseRule(data []byte) (*Rule, error) {
	ps := &problem.List{}
	doc, ok := object(data)
	if !ok {
		ps.Add("rule", `must be a JSON object with "channel" and "events"`)
		return nil, ps
	}
	r := &Rule{}
	thresholdSet := false
	for _, key := range sortedKeys(doc) {
		raw := doc[key]
		switch strings.ToLower(key) {
		case "channel":
			s, ok := str(raw)
			if !ok || !ValidName(s) {
				ps.Add("channel", fmt.Sprintf("%s is not a channel name", string(raw)))
			}
			r.Channel = s
		case "scope":
			r.Scope = parseScope(raw, ps)
		case "events":
			r.Events = parseEvents(raw, ps)
		case "threshold":
			var n float64
			if err := json.Unmarshal(raw, &n); err != nil || n != float64(int(n)) || n < 2 || n > MaxThreshold {
				ps.Add("threshold", fmt.Sprintf("%s is not a whole number from 2 to %d", string(raw), MaxThreshold))
				thresholdSet = true
				continue
			}
			r.Threshold, thresholdSet = int(n), true
		case "mininterval":
			s, ok := str(raw)
			if !ok {
				ps.Add("minInterval", "must be an ISO 8601 duration such as PT15M")
				continue
			}
			d, err := jobdef.ParseISODuration(s)
			switch {
			case err != nil:
				ps.Add("minInterval", fmt.Sprintf("%q is not an ISO 8601 duration such as PT15M", s))
			case d > MaxMinInterval:
				ps.Add("minInterval", fmt.Sprintf("%q is over the maximum of P7D", s))
			default:
				r.MinInterval = d
			}
		case "name", "createdat", "updatedat":
			// Written by answers; the name comes from the URL.
		default:
			ps.Add(key, "is not a field of an alert rule (channel, scope, events, threshold, minInterval)")
		}
	}
	if r.Channel == "" && ps.For("channel") == "" {
		ps.Add("channel", "is required")
	}
	if _, ok := lookup(doc, "events"); !ok {
		ps.Add("events", "is required: "+eventList())
	}
	if r.Scope.Monitor != "" {
		for i, t := range r.Events {
			if !slices.Contains(MonitorEvents, t) {
				ps.Add(fmt.Sprintf("events[%d]", i), fmt.Sprintf("%s is not an event of a monitor (monitorMissed, monitorRecovered, monitorFailed, slowRun), and the rule's scope is a monitor", t))
			}
		}
	}
	switch {
	case r.Has(ConsecutiveFailures) && !thresholdSet:
		ps.Add("threshold", "is required with consecutiveFailures (2 or more)")
	case !r.Has(ConsecutiveFailures) && thresholdSet && ps.For("events") == "":
		ps.Add("threshold", "applies only with the event consecutiveFailures")
	}
	if err := ps.OrNil(); err != nil {
		return nil, err
	}
	return r, nil
}

// eventList names the event types.
func eventList() string {
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// parseScope reads scope.
func parseScope(raw json.RawMessage, ps *problem.List) Scope {
	var s Scope
	if isNull(raw) {
		return s
	}
	o, ok := object(raw)
	if !ok {
		ps.Add("scope", "must be an object with resourceGroup, collection and job (each optional), or monitor")
		return s
	}
	for _, key := range sortedKeys(o) {
		v, ok := str(o[key])
		if !ok && !isNull(o[key]) {
			ps.Add("scope."+key, "must be a string")
			continue
		}
		switch strings.ToLower(key) {
		case "resourcegroup":
			s.ResourceGroup = v
		case "collection":
			s.Collection = v
		case "job":
			s.Job = v
		case "monitor":
			s.Monitor = v
			if v != "" && !ValidName(v) {
				ps.Add("scope.monitor", fmt.Sprintf("%q is not a monitor name", v))
			}
		default:
			ps.Add("scope."+key, "is not a field of a scope (resourceGroup, collection, job, monitor)")
		}
	}
	if s.Monitor != "" && s.ResourceGroup != "" {
		ps.Add("scope.monitor", "cannot be combined with resourceGroup, collection or job")
	}
	if s.Job != "" && s.Collection == "" {
		ps.Add("scope.collection", "is required with a job")
	}
	if s.Collection != "" && s.ResourceGroup == "" {
		ps.Add("scope.resourceGroup", "is required with a collection")
	}
	return s
}

// parseEvents reads events.
func parseEvents(raw json.RawMessage, ps *problem.List) []EventType {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		ps.Add("events", "must be an array of event types: "+eventList())
		return nil
	}
	if len(items) == 0 {
		ps.Add("events", "must name at least one event: "+eventList())
		return nil
	}
	var out []EventType
	for i, item := range items {
		s, _ := str(item)
		t, ok := eventType(s)
		switch {
		case !ok:
			ps.Add(fmt.Sprintf("events[%d]", i), fmt.Sprintf("%s is not an event (%s)", string(item), eventList()))
		case slices.Contains(out, t):
			ps.Add(fmt.Sprintf("events[%d]", i), fmt.Sprintf("%s is named twice", t))
		default:
			out = append(out, t)
		}
	}
	return out
}

// eventType returns the event type spelled s (without regard to case).
func eventType(s string) (EventType, bool) {
	for _, t := range EventTypes {
		if strings.EqualFold(string(t), s) {
			return t, true
		}
	}
	return "", false
}

// Marshal returns the rule in canonical form, without its name.
func (r *Rule) Marshal() json.RawMessage {
	out, _ := json.Marshal(r.wire())
	return out
}

// ruleWire is the JSON of a rule.
type ruleWire struct {
	Channel     string      `json:"channel"`
	Scope       Scope       `json:"scope"`
	Events      []EventType `json:"events"`
	Threshold   int         `json:"threshold,omitempty"`
	MinInterval string      `json:"minInterval"`
}

func (r *Rule) wire() ruleWire {
	return ruleWire{Channel: r.Channel, Scope: r.Scope, Events: r.Events, Threshold: r.Threshold,
		MinInterval: jobdef.FormatISODuration(r.MinInterval)}
}
