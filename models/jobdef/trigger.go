package jobdef

import (
	"fmt"
	"strings"
	"time"
)

// A job that runs after other jobs (properties.trigger, extension, SPEC
// §17.1): {"after": ["rg/jc/job", …], "on": "succeeded", "within": "PT6H"}.
// A job has a trigger or a recurrence, never both. The names in after are
// checked here for their form only; whether the jobs exist in the
// workspace and form no cycle is the store's check (models.syncTriggers),
// in the write's transaction.

// TriggerOn says which ends of an upstream occurrence trigger the job.
type TriggerOn string

// The values of trigger.on. TriggerSucceeded is the default.
const (
	TriggerSucceeded TriggerOn = "succeeded"
	TriggerFailed    TriggerOn = "failed"
	TriggerFinished  TriggerOn = "finished"
)

// Matches reports whether an upstream occurrence that ended succeeded
// (true) or failed (false) counts for on.
func (on TriggerOn) Matches(succeeded bool) bool {
	switch on {
	case TriggerFailed:
		return !succeeded
	case TriggerFinished:
		return true
	}
	return succeeded
}

// DefaultTriggerWithin is trigger.within when absent: how far apart the
// upstream ends that trigger a fan-in may lie.
const DefaultTriggerWithin = 24 * time.Hour

// MaxTriggerWithin is the longest trigger.within.
const MaxTriggerWithin = 30 * 24 * time.Hour

// MaxTriggerUpstreams is the most jobs trigger.after may name.
const MaxTriggerUpstreams = 20

// JobPath names a job of the same workspace: resource group, collection
// and job name, written "rg/jc/job".
type JobPath struct {
	ResourceGroup, Collection, Job string
}

// String is the path as written: "rg/jc/job".
func (p JobPath) String() string { return p.ResourceGroup + "/" + p.Collection + "/" + p.Job }

// Key is the path in lower case: names compare case-insensitively.
func (p JobPath) Key() string { return strings.ToLower(p.String()) }

// ParseJobPath reads "rg/jc/job": three non-empty names separated by '/'.
func ParseJobPath(s string) (JobPath, bool) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	if len(parts) != 3 {
		return JobPath{}, false
	}
	for _, p := range parts {
		if p == "" || strings.TrimSpace(p) != p {
			return JobPath{}, false
		}
	}
	return JobPath{ResourceGroup: parts[0], Collection: parts[1], Job: parts[2]}, true
}

// Trigger is a parsed properties.trigger.
type Trigger struct {
	// After are the upstream jobs, in the order given, without
	// duplicates; never empty.
	After []JobPath
	// On defaults to TriggerSucceeded.
	On TriggerOn
	// Within is how far the oldest of a fan-in's upstream ends may lie
	// before the newest (DefaultTriggerWithin when absent); WithinText is
	// within as given, "" when absent.
	Within     time.Duration
	WithinText string
}

// parseTrigger reads properties.trigger into job; problems are named
// trigger.after[i], trigger.on, trigger.within, and trigger itself when the
// job also has a recurrence.
func parseTrigger(o object, job *Job, ps *problems) {
	raw, ok := o.get("trigger")
	if !ok {
		return
	}
	obj, ok := decodeObject(raw)
	if !ok {
		ps.add("trigger", "must be an object, not "+article(kindOf(raw)))
		return
	}
	t := &Trigger{On: TriggerSucceeded, Within: DefaultTriggerWithin}
	n := len(ps.list)
	if rawAfter, ok := obj.get("after"); !ok {
		ps.add("trigger.after", "is required: the jobs (rg/jc/job) after which this job runs")
	} else if items, ok := decodeArray(rawAfter); !ok {
		ps.add("trigger.after", "must be an array of job paths (rg/jc/job), not "+article(kindOf(rawAfter)))
	} else {
		switch {
		case len(items) == 0:
			ps.add("trigger.after", "must name at least one job (rg/jc/job)")
		case len(items) > MaxTriggerUpstreams:
			ps.add("trigger.after", fmt.Sprintf("names %d jobs, over the maximum of %d", len(items), MaxTriggerUpstreams))
		}
		seen := map[string]int{}
		for i, it := range items {
			path := fmt.Sprintf("trigger.after[%d]", i)
			s, ok := decodeString(it)
			if !ok {
				ps.add(path, "must be a string (rg/jc/job), not "+article(kindOf(it)))
				continue
			}
			jp, ok := ParseJobPath(s)
			if !ok {
				ps.add(path, fmt.Sprintf("%q is not a job path: write resourceGroup/jobCollection/job", s))
				continue
			}
			if first, dup := seen[jp.Key()]; dup {
				ps.add(path, fmt.Sprintf("%q is already trigger.after[%d]", s, first))
				continue
			}
			seen[jp.Key()] = i
			t.After = append(t.After, jp)
		}
	}
	if s, ok := stringField(obj, "on", "trigger.on", ps); ok {
		switch on := TriggerOn(strings.ToLower(s)); on {
		case TriggerSucceeded, TriggerFailed, TriggerFinished:
			t.On = on
		default:
			ps.add("trigger.on", fmt.Sprintf("%q is not one of succeeded, failed, finished", s))
		}
	}
	if s, ok := stringField(obj, "within", "trigger.within", ps); ok {
		d, err := ParseISODuration(s)
		switch {
		case err != nil:
			ps.add("trigger.within", fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT6H)", s))
		case d < time.Second:
			ps.add("trigger.within", fmt.Sprintf("%q must be at least PT1S", s))
		case d > MaxTriggerWithin:
			ps.add("trigger.within", fmt.Sprintf("%q is over the maximum of P30D", s))
		default:
			t.Within, t.WithinText = d, s
		}
	}
	if _, has := o.get("recurrence"); has {
		ps.add("trigger", "cannot be used with recurrence: a job runs on its schedule or after other jobs, not both")
	}
	if len(ps.list) == n {
		job.Trigger = t
	}
}

// marshal writes the trigger in canonical form: after as given, on always,
// within when given.
func (t *Trigger) marshal() []byte {
	w := &objWriter{}
	after := make([]string, len(t.After))
	for i, p := range t.After {
		after[i] = p.String()
	}
	w.val("after", after)
	w.str("on", string(t.On))
	if t.WithinText != "" {
		w.str("within", t.WithinText)
	}
	return w.done()
}

// Describe is the trigger in words, as the preview and the job's
// description say it: "after rg/jc/A succeeds", "after rg/jc/A and
// rg/jc/B succeed within 1 hour" (within is named for a fan-in only: a
// single upstream has no other end to be near). span formats within.
func (t *Trigger) Describe(span func(time.Duration) string) string {
	names := make([]string, len(t.After))
	for i, p := range t.After {
		names[i] = p.String()
	}
	var list string
	switch len(names) {
	case 0:
		list = "no job"
	case 1:
		list = names[0]
	default:
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	one, many := "succeeds", "succeed"
	switch t.On {
	case TriggerFailed:
		one, many = "fails", "fail"
	case TriggerFinished:
		one, many = "finishes", "finish"
	}
	if len(names) <= 1 {
		return "after " + list + " " + one
	}
	return "after " + list + " " + many + " within " + span(t.Within)
}
