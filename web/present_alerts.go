package web

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"sked/models"
)

// EventLabels name the event types of SPEC §13.3 for people, in the
// order the add form offers them.
var EventLabels = []Choice{
	{"occurrenceFaulted", wordFaulted},
	{"recovered", "recovered"},
	{"attemptFailed", "attempt failed"},
	{"missed", "missed"},
	{"consecutiveFailures", "failures in a row"},
	{"jobFaulted", "job faulted"},
	{"jobCompleted", "job completed"},
	{"deadlineMissed", "deadline missed"},
	{"slowRun", "slow run"},
}

// DefaultAlertEvents are the events the add form starts with checked.
var DefaultAlertEvents = []string{"occurrenceFaulted", "recovered"}

// AlertsIn is what NewAlertsPanel shows.
type AlertsIn struct {
	Workspace, CSRFToken string
	// ResourceGroup, Collection and Job are the page's scope: all empty
	// for the workspace (every rule is listed), a collection (rules
	// covering it or one of its jobs), a job (rules covering it).
	ResourceGroup, Collection, Job string
	CanManage                      bool
	Rules                          []models.AlertRule
	// Channels are the workspace's channels in name order.
	Channels []models.Channel
	// Form, when not nil, is a refused submission: its values and errors;
	// Events are its checked events.
	Form   *AlertForm
	Events []string
	// Message and Error report the last change.
	Message, Error string
	// Bell adds the job page's bell.
	Bell bool
}

// NewAlertsPanel is the #alerts panel of a page's scope.
func NewAlertsPanel(in AlertsIn) AlertsPanel {
	p := AlertsPanel{CSRFToken: in.CSRFToken, ResourceGroup: in.ResourceGroup, Collection: in.Collection, Job: in.Job,
		ScopeText: scopeWord(in.Collection, in.Job), CanManage: in.CanManage, AddURL: AlertsPath(in.Workspace),
		ChannelsURL: ChannelsPath(in.Workspace), Message: in.Message, Error: in.Error}
	watching := false
	for i := range in.Rules {
		r := &in.Rules[i]
		if !alertCovers(r, in.ResourceGroup, in.Collection, in.Job) {
			continue
		}
		events := ruleEvents(r)
		if in.Job != "" && slices.Contains(events, "occurrenceFaulted") {
			watching = true
		}
		p.Rules = append(p.Rules, AlertRow{ID: "alert-" + r.Name, Name: r.Name,
			Summary: AlertSummary(events, r.Threshold, r.ChannelName), Scope: ScopeText(r.ScopeResourceGroup, r.ScopeCollection, r.ScopeJob),
			Throttle: throttleText(r.MinInterval()), RemoveURL: AlertDeletePath(in.Workspace, r.Name)})
	}
	for _, ch := range in.Channels {
		p.Channels = append(p.Channels, Choice{Value: ch.Name, Label: ch.Name + " (" + channelTypeLabel(ch.Type) + ")"})
	}
	checked := DefaultAlertEvents
	if in.Form != nil {
		p.Form = *in.Form
		checked = in.Events
	}
	for _, e := range EventLabels {
		p.Events = append(p.Events, EventChoice{Value: e.Value, Label: e.Label, Checked: slices.Contains(checked, e.Value)})
	}
	if in.Bell {
		p.Bell = newBell(in, watching)
	}
	return p
}

// newBell is the job page's bell: on when a rule tells of the job's
// faults; else a button to the first channel, or a link to the Channels
// page when there is none.
func newBell(in AlertsIn, watching bool) *Bell {
	switch {
	case watching:
		return &Bell{On: true, Label: "Alerts on: you hear when this job fails"}
	case len(in.Channels) == 0:
		return &Bell{SetupURL: ChannelsPath(in.Workspace), Label: "Add a channel to hear when this job fails"}
	}
	return &Bell{URL: JobBellPath(in.Workspace, in.ResourceGroup, in.Collection, in.Job),
		Label: "Tell me when this job fails (→ #" + in.Channels[0].Name + ")"}
}

// alertCovers reports whether rule r is shown on the page of scope rg,
// coll, job (see AlertsIn).
func alertCovers(r *models.AlertRule, rg, coll, job string) bool {
	same := func(ruleName, page string) bool { return ruleName == "" || strings.EqualFold(ruleName, page) }
	switch {
	case coll == "":
		return true
	case job == "":
		return same(r.ScopeResourceGroup, rg) && same(r.ScopeCollection, coll)
	}
	return same(r.ScopeResourceGroup, rg) && same(r.ScopeCollection, coll) && same(r.ScopeJob, job)
}

// ruleEvents are a stored rule's event names.
func ruleEvents(r *models.AlertRule) []string {
	var out []string
	_ = json.Unmarshal(r.Events, &out) // the database checks the array
	return out
}

// AlertSummary says what a rule sends where: "faulted, recovered →
// #ops-slack", with consecutiveFailures as "3 failures in a row".
func AlertSummary(events []string, threshold int, channel string) string {
	words := make([]string, 0, len(events))
	for _, e := range events {
		w := e
		for _, l := range EventLabels {
			if l.Value == e {
				w = l.Label
			}
		}
		if e == "consecutiveFailures" {
			w = strconv.Itoa(threshold) + " " + w
		}
		words = append(words, w)
	}
	return strings.Join(words, ", ") + " → #" + channel
}

// ScopeText says where a rule applies.
func ScopeText(rg, coll, job string) string {
	switch {
	case job != "":
		return "job " + coll + " / " + job
	case coll != "":
		return "collection " + rg + " / " + coll
	case rg != "":
		return "resource group " + rg
	}
	return "whole workspace"
}

// scopeWord names a page's scope in the add form ("this job").
func scopeWord(coll, job string) string {
	switch {
	case job != "":
		return "this job"
	case coll != "":
		return "this collection"
	}
	return "the whole workspace"
}

// throttleText says a rule's minInterval, "" for none.
func throttleText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return "at most one message per " + SpanText(d) + " per job (a digest of the rest)"
}

// AlertBody is the rule JSON (models/notifydef) of the add form: its
// channel, the page's scope, the checked events, and the threshold and
// minInterval when given (a threshold that is not a number is passed as
// the text, for the parser to name).
func AlertBody(rg, coll, job string, events []string, f AlertForm) ([]byte, error) {
	doc := map[string]any{"channel": f.Channel, "events": events,
		"scope": map[string]string{"resourceGroup": rg, "collection": coll, "job": job}}
	if events == nil {
		doc["events"] = []string{}
	}
	if t := strings.TrimSpace(f.Threshold); t != "" && slices.Contains(events, "consecutiveFailures") {
		if n, err := strconv.Atoi(t); err == nil {
			doc["threshold"] = n
		} else {
			doc["threshold"] = t
		}
	}
	if m := strings.TrimSpace(f.MinInterval); m != "" {
		doc["minInterval"] = m
	}
	return json.Marshal(doc)
}

// AlertFormErrors moves a rule's problems to the add form's fields:
// "events[2]" to "events", "scope.job" to "scope".
func AlertFormErrors(errs FieldErrors) FieldErrors {
	out := FieldErrors{}
	for k, v := range errs {
		if i := strings.IndexAny(k, "[."); i > 0 {
			k = k[:i]
		}
		if out[k] == "" {
			out[k] = v
		}
	}
	return out
}
