package recurrence

import (
	"testing"
	"time"

	"sked/models/jobdef"
)

// TestTriggeredJobHasNoOccurrences checks that a job with a trigger has
// no occurrence of its own, no warning, and the trigger as its
// description.
func TestTriggeredJobHasNoOccurrences(t *testing.T) {
	job, err := jobdef.Parse([]byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"trigger":{"after":["rg/jc/A","rg/jc/B"],"within":"PT1H"}}`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	res, err := Preview(job, now, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Occurrences) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("preview = %+v", res)
	}
	if want := "Runs after rg/jc/A and rg/jc/B succeed within 1 hour"; res.Description != want {
		t.Fatalf("description %q, want %q", res.Description, want)
	}
	r, err := Compile(job, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Next(now.Add(-time.Hour)); ok || !r.Triggered() {
		t.Fatal("a triggered rule has an occurrence")
	}
}
