package web

import (
	"strings"

	"sked/models/jobdef"
)

// The job form's "Runs after" mode (SPEC §17.1): the schedule kind
// FrequencyAfter replaces the recurrence by properties.trigger, whose
// fields are the upstream jobs (one rg/jc/job per line), on and within.

// FrequencyAfter is the "Repeat every" choice of a job that runs after
// other jobs.
const FrequencyAfter = "after"

// triggerOnChoices are the choices of trigger.on.
var triggerOnChoices = []Choice{{string(jobdef.TriggerSucceeded), "All succeed"}, {string(jobdef.TriggerFailed), "All fail"},
	{string(jobdef.TriggerFinished), "All finish (succeeded or failed)"}}

// triggerJSON is the trigger the form's fields stand for: the upstream
// jobs one per line (blank lines left out), on, and within when given.
func (f JobForm) triggerJSON() map[string]any {
	after := []string{}
	for _, line := range strings.Split(f.TriggerAfter, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			after = append(after, line)
		}
	}
	t := map[string]any{"after": after}
	if f.TriggerOn != "" {
		t["on"] = f.TriggerOn
	}
	if f.TriggerWithin != "" {
		t["within"] = f.TriggerWithin
	}
	return t
}

// fillTrigger fills the form's trigger fields from a job's trigger.
func (f *JobForm) fillTrigger(t *jobdef.Trigger) {
	f.Frequency = FrequencyAfter
	lines := make([]string, len(t.After))
	for i, p := range t.After {
		lines[i] = p.String()
	}
	f.TriggerAfter, f.TriggerOn, f.TriggerWithin = strings.Join(lines, "\n"), string(t.On), t.WithinText
}

// triggerErrorSlot is the form's slot of a problem of the trigger (path
// without indexes): the one of the field that edits it; a trigger given
// with a recurrence is a problem of "Repeat every".
func triggerErrorSlot(path string) string {
	switch path {
	case "trigger.after":
		return "trigger_after"
	case "trigger.on":
		return "trigger_on"
	case "trigger.within":
		return "trigger_within"
	}
	return "frequency"
}
