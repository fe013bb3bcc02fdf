package provider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestParseARMID(t *testing.T) {
	for _, c := range []struct {
		id   string
		job  bool
		want armID
		ok   bool
	}{
		{"/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc", false, armID{"default", "rg", "jc", ""}, true},
		{"/SUBSCRIPTIONS/ws/resourcegroups/rg/providers/microsoft.scheduler/JOBCOLLECTIONS/jc/JOBS/j1", true, armID{"ws", "rg", "jc", "j1"}, true},
		{"/subscriptions/ws/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/j1", false, armID{}, false},
		{"/subscriptions/ws/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc", true, armID{}, false},
		{"ws/jc", false, armID{}, false},
	} {
		got, err := parseARMID(c.id, c.job)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseARMID(%q, %v) = %+v, %v; want %+v, ok %v", c.id, c.job, got, err, c.want, c.ok)
		}
	}
}

// TestAddAPIError: each problem of a 400 lands on the attribute of the
// longest matching rule; other answers are one error of the resource.
func TestAddAPIError(t *testing.T) {
	m := &jobModel{
		ActionWeb:               []webActionModel{{AuthenticationBasic: []basicAuthModel{{}}}},
		ErrorActionStorageQueue: []storageQueueModel{{}},
	}
	rules := jobFieldRules(m)
	bad := fmt.Errorf("PUT x: %w", &apiError{Status: 400, Code: "BadRequest", Details: []apiErrorDetail{
		{Target: "action.request.authentication.password", Message: "a"},
		{Target: "action.errorAction.queueMessage.queueName", Message: "b"},
		{Target: "recurrence.schedule.weekDays[1]", Message: "c"},
		{Target: "properties.recurrence.interval", Message: "d"},
		{Target: "somethingNew", Message: "e"},
	}})
	var diags diag.Diagnostics
	addAPIError(&diags, "Creating the job", bad, rules)
	want := []string{
		"action_web[0].authentication_basic[0].password",
		"error_action_storage_queue[0].storage_queue_name",
		"recurrence[0].week_days",
		"recurrence[0].interval",
		"",
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, d := range diags {
		got := ""
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			got = wp.Path().String()
		}
		if got != want[i] {
			t.Errorf("diagnostic %d (%s) on %q, want %q", i, d.Detail(), got, want[i])
		}
	}

	diags = nil
	addAPIError(&diags, "Creating the job", fmt.Errorf("x: %w", &apiError{Status: 409, Message: "quota"}), rules)
	if len(diags) != 1 {
		t.Fatalf("409: %v", diags)
	}
	if _, ok := diags[0].(diag.DiagnosticWithPath); ok {
		t.Errorf("409 has a path: %v", diags[0])
	}
	diags = nil
	addAPIError(&diags, "x", errors.New("connection refused"), rules)
	if len(diags) != 1 || diags[0].Detail() != "connection refused" {
		t.Errorf("transport error: %v", diags)
	}
}

func TestSpellingAndInstants(t *testing.T) {
	if got := spelling(types.StringValue("week"), "Week"); got.ValueString() != "week" {
		t.Errorf("spelling kept %q", got.ValueString())
	}
	if got := spelling(types.StringValue("day"), "week"); got.ValueString() != "week" {
		t.Errorf("spelling of a changed value: %q", got.ValueString())
	}
	if got := spelling(types.StringNull(), "week"); got.ValueString() != "week" {
		t.Errorf("spelling without prior: %q", got.ValueString())
	}
	if got := sameInstant(types.StringValue("2018-07-07T14:07:07Z"), "2018-07-07T07:07:07-07:00"); got.ValueString() != "2018-07-07T14:07:07Z" {
		t.Errorf("same instant not kept: %q", got.ValueString())
	}
	if got := sameInstant(types.StringValue("2018-07-07T14:07:08Z"), "2018-07-07T07:07:07-07:00"); got.ValueString() != "2018-07-07T07:07:07-07:00" {
		t.Errorf("another instant kept: %q", got.ValueString())
	}
	if !sameJSON(`[{"a":1,"b":[2]}]`, `[ {"b":[2], "a":1} ]`) || sameJSON(`[1]`, `[2]`) {
		t.Error("sameJSON")
	}
}
