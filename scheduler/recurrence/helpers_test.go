package recurrence

import (
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
)

// action is the minimal valid action used by the test jobs.
const action = `"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}}`

// mustParse parses a job JSON, failing the test on error.
func mustParse(t testing.TB, js string) *jobdef.Job {
	job, err := jobdef.Parse([]byte(js))
	if err != nil {
		if t == nil {
			panic(err)
		}
		t.Helper()
		t.Fatalf("parse %s: %v", js, err)
	}
	return job
}

// jobJSON builds a flat job from its recurrence JSON and an optional startTime.
func jobJSON(start, recurrence string) string {
	parts := []string{action}
	if start != "" {
		parts = append(parts, `"startTime":"`+start+`"`)
	}
	if recurrence != "" {
		parts = append(parts, `"recurrence":`+recurrence)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// mustTime parses an RFC 3339 time, failing the test on error.
func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	return v
}

// formatAll formats instants as RFC 3339 in their own zone.
func formatAll(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, v := range ts {
		out[i] = v.Format(time.RFC3339)
	}
	return out
}

// takeN returns the first n executions of a job created at now, as RFC 3339.
func takeN(t testing.TB, js, now string, n int) []string {
	t.Helper()
	job := mustParse(t, js)
	ts, err := Occurrences(job, mustTime(t, now), n)
	if err != nil {
		t.Fatalf("occurrences: %v", err)
	}
	return formatAll(ts)
}

// sameInstants compares two lists of RFC 3339 strings as instants, so that
// expectations may be written in UTC or with offsets.
func sameInstants(t testing.TB, got, want []string) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !mustTime(t, got[i]).Equal(mustTime(t, want[i])) {
			return false
		}
	}
	return true
}
