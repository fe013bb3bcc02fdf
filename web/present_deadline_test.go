package web

import (
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/notifydef"
)

// TestJobDeadlineView checks the job page's deadline block: nil for a
// job without deadline or events, the deadline in words, and each event
// in the job's zone.
func TestJobDeadlineView(t *testing.T) {
	parse := func(deadline string) *jobdef.Job {
		j, err := jobdef.Parse([]byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},` +
			`"recurrence":{"frequency":"day"}` + deadline + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	now := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	if v := NewJobDeadlineView(parse(""), nil, time.UTC, now); v != nil {
		t.Errorf("a job without a deadline has a block: %+v", v)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	v := NewJobDeadlineView(parse(`,"deadline":{"succeedWithin":"PT2H","maxDuration":"PT30S"}`), []models.DeadlineEvent{
		{Type: notifydef.DeadlineMissed, At: due.Add(2 * time.Hour), ExpectedTime: due, DeadlineAt: due.Add(2 * time.Hour)},
		{Type: notifydef.SlowRun, At: due.Add(30 * time.Second), ExpectedTime: due, Action: models.MainAction, StartedAt: due},
	}, berlin, now)
	if v == nil || !strings.HasPrefix(v.SucceedWithin, "Must succeed within 2 h") || !strings.Contains(v.SucceedWithin, "(PT2H)") ||
		!strings.Contains(v.MaxDuration, "(PT30S)") || len(v.Events) != 2 {
		t.Fatalf("block %+v", v)
	}
	if got, want := v.Events[0].Text, "The run of Sat 28 Nov 03:00 had not succeeded by Sat 28 Nov 05:00"; got != want {
		t.Errorf("deadlineMissed %q, want %q", got, want)
	}
	if got := v.Events[1].Text; !strings.Contains(got, "MainAction") || !strings.Contains(got, "30") {
		t.Errorf("slowRun %q", got)
	}
}
