package web

import (
	"net/url"
	"strings"
	"testing"

	"sked/models/jobdef"
	"sked/models/problem"
)

// TestJobFormDeadline checks that the deadline fields become
// properties.deadline and come back from a parsed job, that empty fields
// leave it out, and that its problems land in the fields' slots.
func TestJobFormDeadline(t *testing.T) {
	f := url.Values{"mode": {"form"}, "method": {"GET"}, "uri": {"https://example.com/"}, "frequency": {"day"},
		"timeout": {"PT5M"}, "succeed_within": {" PT2H "}, "max_duration": {"PT90S"}}
	jf := ReadJobForm(f)
	job, err := jobdef.Parse(jf.JobJSON())
	if err != nil {
		t.Fatalf("%s: %v", jf.JobJSON(), err)
	}
	if job.Deadline == nil || job.Deadline.SucceedWithin.String() != "2h0m0s" || job.Deadline.MaxDuration.String() != "1m30s" {
		t.Fatalf("deadline %+v from %s", job.Deadline, jf.JobJSON())
	}
	back, unsupported := JobFormFrom(job)
	if unsupported != "" || back.Deadline != (JobFormDeadline{SucceedWithin: "PT2H", MaxDuration: "PT1M30S"}) {
		t.Errorf("form from the job: %+v (%s)", back.Deadline, unsupported)
	}
	f.Del("succeed_within")
	f.Set("max_duration", "")
	if js := string(ReadJobForm(f).JobJSON()); strings.Contains(js, "deadline") {
		t.Errorf("empty fields wrote %s", js)
	}
	f.Set("succeed_within", "P9D")
	f.Set("max_duration", "PT5M")
	_, err = jobdef.Parse(ReadJobForm(f).JobJSON())
	errs, rest := JobFormErrors(problem.As(err), false)
	if !strings.HasPrefix(errs["succeed_within"], "Must succeed within: ") || !strings.HasPrefix(errs["max_duration"], "Alert if a run takes longer than: ") || len(rest) != 0 {
		t.Errorf("field errors %v, rest %v", errs, rest)
	}
}
