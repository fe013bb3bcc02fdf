package jobdef

import (
	"strings"
	"testing"
	"time"

	"sked/models/problem"
)

const triggerAction = `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}`

// TestTriggerParsesAndMarshals checks that properties.trigger is read in
// both shapes with its defaults, and written back in canonical form.
func TestTriggerParsesAndMarshals(t *testing.T) {
	job, err := Parse([]byte(`{"properties":{` + triggerAction + `,"trigger":{"after":["rg/jc/A","rg/jc/B"],"On":"FINISHED","within":"PT1H"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tr := job.Trigger
	if tr == nil || len(tr.After) != 2 || tr.After[1] != (JobPath{"rg", "jc", "B"}) || tr.On != TriggerFinished || tr.Within != time.Hour {
		t.Fatalf("trigger = %+v", tr)
	}
	out := string(job.MarshalProperties(MarshalOptions{}))
	if want := `"trigger":{"after":["rg/jc/A","rg/jc/B"],"on":"finished","within":"PT1H"}`; !strings.Contains(out, want) {
		t.Fatalf("marshalled %s, want it to contain %s", out, want)
	}
	again, err := Parse(job.MarshalProperties(MarshalOptions{}))
	if err != nil || string(again.MarshalProperties(MarshalOptions{})) != out {
		t.Fatalf("round trip: %v %s", err, again.MarshalProperties(MarshalOptions{}))
	}

	flat, err := Parse([]byte(`{` + triggerAction + `,"trigger":{"after":["rg/jc/A"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if flat.Trigger.On != TriggerSucceeded || flat.Trigger.Within != DefaultTriggerWithin || flat.Trigger.WithinText != "" {
		t.Fatalf("defaults: %+v", flat.Trigger)
	}
	if got := string(flat.MarshalProperties(MarshalOptions{})); !strings.Contains(got, `"trigger":{"after":["rg/jc/A"],"on":"succeeded"}`) {
		t.Fatalf("defaults marshalled as %s", got)
	}
}

// TestTriggerProblems checks every refusal of a trigger names its field.
func TestTriggerProblems(t *testing.T) {
	for _, tc := range []struct{ name, trigger, extra, want string }{
		{"not an object", `"a"`, "", `trigger: must be an object, not a string`},
		{"no after", `{}`, "", `trigger.after: is required`},
		{"empty after", `{"after":[]}`, "", `trigger.after: must name at least one job`},
		{"after not an array", `{"after":"rg/jc/A"}`, "", `trigger.after: must be an array`},
		{"bad path", `{"after":["rg/jc/A","jc/A"]}`, "", `trigger.after[1]: "jc/A" is not a job path`},
		{"empty segment", `{"after":["rg//A"]}`, "", `trigger.after[0]: "rg//A" is not a job path`},
		{"not a string", `{"after":[1]}`, "", `trigger.after[0]: must be a string`},
		{"duplicate", `{"after":["rg/jc/A","RG/jc/a"]}`, "", `trigger.after[1]: "RG/jc/a" is already trigger.after[0]`},
		{"bad on", `{"after":["rg/jc/A"],"on":"done"}`, "", `trigger.on: "done" is not one of succeeded, failed, finished`},
		{"bad within", `{"after":["rg/jc/A"],"within":"1h"}`, "", `trigger.within: "1h" is not an ISO 8601 duration`},
		{"within too long", `{"after":["rg/jc/A"],"within":"P31D"}`, "", `trigger.within: "P31D" is over the maximum of P30D`},
		{"with recurrence", `{"after":["rg/jc/A"]}`, `,"recurrence":{"frequency":"hour"}`, `trigger: cannot be used with recurrence`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(`{` + triggerAction + tc.extra + `,"trigger":` + tc.trigger + `}`))
			ve := problem.As(err)
			if ve == nil || !strings.Contains(ve.Error(), tc.want) {
				t.Fatalf("got %v, want a problem %q", err, tc.want)
			}
		})
	}
}

// TestTriggerDescribe checks the words of the preview and the description.
func TestTriggerDescribe(t *testing.T) {
	span := func(d time.Duration) string { return d.String() }
	one := &Trigger{After: []JobPath{{"rg", "jc", "A"}}, On: TriggerSucceeded, Within: time.Hour}
	if got := one.Describe(span); got != "after rg/jc/A succeeds" {
		t.Errorf("one upstream: %q", got)
	}
	fan := &Trigger{After: []JobPath{{"rg", "jc", "A"}, {"rg", "jc", "B"}}, On: TriggerSucceeded, Within: time.Hour}
	if got := fan.Describe(span); got != "after rg/jc/A and rg/jc/B succeed within 1h0m0s" {
		t.Errorf("fan-in: %q", got)
	}
	fan.On = TriggerFailed
	fan.After = append(fan.After, JobPath{"rg", "jc", "C"})
	if got := fan.Describe(span); got != "after rg/jc/A, rg/jc/B and rg/jc/C fail within 1h0m0s" {
		t.Errorf("fan-in of three: %q", got)
	}
	if !TriggerFinished.Matches(false) || !TriggerFailed.Matches(false) || TriggerFailed.Matches(true) || !TriggerSucceeded.Matches(true) || TriggerSucceeded.Matches(false) {
		t.Error("Matches")
	}
}
