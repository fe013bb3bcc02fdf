package recurrence

import (
	"testing"
	"time"

	"sked/models/jobdef"
)

// TestDescriptionSaysTheDeadline checks that a job's description ends with
// its succeedWithin, after the zone, and says nothing of maxDuration.
func TestDescriptionSaysTheDeadline(t *testing.T) {
	for _, tc := range []struct{ deadline, want string }{
		{`{"succeedWithin":"PT2H"}`, "At 02:00, every day (Europe/Berlin), must succeed within 2 hours"},
		{`{"succeedWithin":"PT90M","maxDuration":"PT30S"}`, "At 02:00, every day (Europe/Berlin), must succeed within 90 minutes"},
		{`{"maxDuration":"PT30S"}`, "At 02:00, every day (Europe/Berlin)"},
	} {
		job, err := jobdef.Parse([]byte(`{"startTime":"2024-05-01T02:00:00","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},` +
			`"recurrence":{"frequency":"day","timeZone":"Europe/Berlin"},"deadline":` + tc.deadline + `}`))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Compile(job, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Description(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.deadline, got, tc.want)
		}
	}
}
