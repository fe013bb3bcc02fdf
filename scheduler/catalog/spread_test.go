package catalog_test

import (
	"strings"
	"testing"

	"sked/models/problem"
	"sked/scheduler/catalog"
)

// TestJobWindowMustBeShorterThanTheGap: a spread window as long as the
// gap between two occurrences (or longer than PT1H, or not a duration) is
// refused naming recurrence.window, nothing written; a shorter one is
// stored as given, and the job waits for an engine to plan it (its
// offsets derive from its id).
func TestJobWindowMustBeShorterThanTheGap(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	job := func(rec string) []byte {
		return []byte(`{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}},"recurrence":` + rec + `}`)
	}
	before := e.fingerprint()
	for _, r := range []struct{ rec, want string }{
		{`{"frequency":"minute","interval":5,"window":"PT5M"}`, `recurrence.window: PT5M is not shorter than the shortest gap between two occurrences (5 minutes)`},
		{`{"frequency":"hour","interval":2,"window":"PT2H"}`, `recurrence.window: "PT2H" is over the maximum of PT1H`},
		{`{"frequency":"day","schedule":{"hours":[9,10]},"window":"PT1H"}`, `recurrence.window: PT1H is not shorter than the shortest gap between two occurrences (1 hour)`},
		{`{"frequency":"day","window":"-PT1M"}`, `recurrence.window: "-PT1M" is negative`},
		{`{"frequency":"day","window":"soon"}`, `recurrence.window: "soon" is not an ISO 8601 duration`},
	} {
		_, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "spread", job(r.rec))
		ve := problem.As(err)
		if ve == nil || len(ve.Problems) != 1 || !strings.HasPrefix(ve.Problems[0].Path+": "+ve.Problems[0].Message, r.want) {
			t.Errorf("%s: got %v, want %s", r.rec, err, r.want)
		}
	}
	if e.fingerprint() != before {
		t.Error("a refused job changed the jobs")
	}
	j, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "spread", job(`{"frequency":"minute","interval":5,"window":"PT4M59S"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j.Definition), `"window":"PT4M59S"`) || j.NextRunAt != nil || !j.NeedsSchedule {
		t.Errorf("stored %s, next run %v, needs schedule %v", j.Definition, j.NextRunAt, j.NeedsSchedule)
	}
}
