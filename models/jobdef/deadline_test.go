package jobdef

import (
	"strings"
	"testing"
	"time"

	"sked/models/problem"
)

// TestDeadline checks properties.deadline: both fields read and written
// back in canonical form, each alone, and every bad value refused naming
// its field with nothing else wrong.
func TestDeadline(t *testing.T) {
	job := func(deadline string) string {
		return `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"timeout":"PT5M"},` +
			`"recurrence":{"frequency":"day"},"deadline":` + deadline + `}}`
	}
	for _, tc := range []struct {
		in       string
		succeed  time.Duration
		max      time.Duration
		marshals string
	}{
		{`{"succeedWithin":"PT2H","maxDuration":"PT4M"}`, 2 * time.Hour, 4 * time.Minute, `"deadline":{"succeedWithin":"PT2H","maxDuration":"PT4M"}`},
		{`{"SucceedWithin":"pt90m"}`, 90 * time.Minute, 0, `"deadline":{"succeedWithin":"PT1H30M"}`},
		{`{"maxDuration":"PT1S"}`, 0, time.Second, `"deadline":{"maxDuration":"PT1S"}`},
		{`{"succeedWithin":"P7D"}`, 7 * 24 * time.Hour, 0, `"deadline":{"succeedWithin":"P7D"}`},
		{`{"succeedWithin":"P1W"}`, 7 * 24 * time.Hour, 0, `"deadline":{"succeedWithin":"P7D"}`},
		{`{}`, 0, 0, ``},
		{`null`, 0, 0, ``},
	} {
		j, err := Parse([]byte(job(tc.in)))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var got Deadline
		if j.Deadline != nil {
			got = *j.Deadline
		}
		if got.SucceedWithin != tc.succeed || got.MaxDuration != tc.max {
			t.Errorf("%s: read %+v, want succeedWithin %v, maxDuration %v", tc.in, got, tc.succeed, tc.max)
		}
		out := string(j.MarshalProperties(MarshalOptions{}))
		if tc.marshals == "" && strings.Contains(out, "deadline") || tc.marshals != "" && !strings.Contains(out, tc.marshals) {
			t.Errorf("%s: written %s, want %q", tc.in, out, tc.marshals)
		}
		again, err := Parse([]byte(`{"properties":` + out + `}`))
		if err != nil || (again.Deadline == nil) != (j.Deadline == nil) || (j.Deadline != nil && *again.Deadline != *j.Deadline) {
			t.Errorf("%s: round trip %s: %v", tc.in, out, err)
		}
	}
	for _, tc := range []struct{ in, path, msg string }{
		{`"PT2H"`, "deadline", "must be an object"},
		{`{"succeedWithin":"PT30S"}`, "deadline.succeedWithin", "PT30S is outside PT1M to P7D"},
		{`{"succeedWithin":"P8D"}`, "deadline.succeedWithin", "outside PT1M to P7D"},
		{`{"succeedWithin":"P1M"}`, "deadline.succeedWithin", "in days, hours, minutes and seconds"},
		{`{"succeedWithin":"P1Y"}`, "deadline.succeedWithin", "in days, hours, minutes and seconds"},
		{`{"succeedWithin":"PT90.5S"}`, "deadline.succeedWithin", "not a whole number of seconds"},
		{`{"succeedWithin":"two hours"}`, "deadline.succeedWithin", "not an ISO 8601 duration"},
		{`{"succeedWithin":7200}`, "deadline.succeedWithin", "must be a string"},
		{`{"succeedWithin":"PT0S"}`, "deadline.succeedWithin", "must be longer than zero"},
		{`{"maxDuration":"PT0.5S"}`, "deadline.maxDuration", "not a whole number of seconds"},
		{`{"maxDuration":"PT5M"}`, "deadline.maxDuration", "PT5M is not shorter than the action's timeout (PT5M)"},
		{`{"maxDuration":"P1D"}`, "deadline.maxDuration", "not shorter than the action's timeout"},
		{`{"within":"PT1H"}`, "deadline.within", "is not a field of deadline"},
	} {
		_, err := Parse([]byte(job(tc.in)))
		ps := problem.As(err)
		if ps == nil || len(ps.Problems) != 1 || ps.Problems[0].Path != tc.path || !strings.Contains(ps.Problems[0].Message, tc.msg) {
			t.Errorf("%s: got %v, want one problem at %s saying %q", tc.in, err, tc.path, tc.msg)
		}
	}
}
