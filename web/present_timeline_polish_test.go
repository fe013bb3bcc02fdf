package web

import (
	"testing"
	"time"

	"sked/models"
)

// TestTimelineSameSecond checks that two executions in the same second
// draw two marks, apart.
func TestTimelineSameSecond(t *testing.T) {
	row, j := timelineJob()
	j.ExecutionCount = 2
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	in := NewTimelineInput(row, j, TimelineRanges[0], now, false)
	in.Entries = []models.HistoryEntry{
		{ID: 2, StartTime: at.Add(300 * time.Millisecond), ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusCompleted},
		{ID: 1, StartTime: at, ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusCompleted},
		{ID: 0, StartTime: at.Add(-2 * time.Hour), ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusFailed},
	}
	v := NewTimelineView(in)
	if len(v.Marks) != 3 {
		t.Fatalf("%d marks, want 3", len(v.Marks))
	}
	a, b := v.Marks[1], v.Marks[2]
	if a.Y != b.Y || b.X-a.X < 2*a.R {
		t.Errorf("same-second marks overlap: %+v and %+v", a, b)
	}
	if v.FirstRun != "" {
		t.Errorf("a job that ran says %q", v.FirstRun)
	}
}

// TestTimelineNeverRan checks that a job that never ran says when it
// first runs instead of drawing an empty picture.
func TestTimelineNeverRan(t *testing.T) {
	row, j := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	first := now.Add(5 * time.Hour)
	for _, tc := range []struct {
		name string
		in   func(*TimelineInput)
		want string
	}{
		{"next run known", func(in *TimelineInput) { in.FirstRun = &first },
			"The job has not run yet: its first run is on Thu 24 Dec 2026 17:00:00 UTC (in 5 h)."},
		{"no next run", func(*TimelineInput) {}, "The job has not run yet and no run is scheduled."},
		{"ran before the range", func(in *TimelineInput) { in.NeverRan = false }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewTimelineInput(row, j, TimelineRanges[0], now, false)
			tc.in(&in)
			if got := NewTimelineView(in).FirstRun; got != tc.want {
				t.Errorf("FirstRun = %q, want %q", got, tc.want)
			}
		})
	}
}
