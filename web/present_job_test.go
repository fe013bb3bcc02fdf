package web

import (
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// berlinJob is a job of the collection of timelineJob scheduled daily at
// 09:00 in Berlin.
func berlinJob(t *testing.T) (*models.CollectionRow, *models.JobDetail, StoredJob) {
	t.Helper()
	row, j := timelineJob()
	j.Definition = []byte(`{"startTime":"2026-01-01T00:00:00Z","action":{"type":"http","request":{"uri":"https://example.com/hook","method":"POST"}},
		"recurrence":{"frequency":"day","schedule":{"hours":[9],"minutes":[0]},"timeZone":"Europe/Berlin"},"state":"enabled"}`)
	pj := ParseStored(j.Definition)
	if pj.Job == nil {
		t.Fatal(pj.Problem)
	}
	return row, j, pj
}

func TestJobPageView(t *testing.T) {
	row, j, pj := berlinJob(t)
	p := HistoryParams{Range: TimelineRanges[0], Status: models.StatusFailed}
	v := NewJobPageView(row, j, pj, "https://sked.example/feed", p, false)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"collection link", v.Head.CollectionURL, "/c/default/rg/jc"},
		{"links", []string{v.Head.URL, v.Head.EditURL, v.Head.ExportURL, v.Head.HistoryURL}, []string{
			"/c/default/rg/jc/jobs/nightly", "/c/default/rg/jc/jobs/nightly/edit",
			"/c/default/rg/jc/jobs/nightly/export.json", "/c/default/rg/jc/jobs/nightly/history"}},
		{"zone", v.Head.Zone, "Europe/Berlin"},
		{"target", v.Head.Target, "POST https://example.com/hook"},
		{"cron", v.Head.Cron, "0 9 * * *"},
		{"feed", v.Head.FeedURL, "https://sked.example/feed"},
		{"filter", []string{v.Filter.URL, v.Filter.Status, v.Filter.Action}, []string{"/c/default/rg/jc/jobs/nightly/history", "Failed", ""}},
		{"statuses", len(v.Filter.Statuses), 4},
		{"not the history page", v.HistoryOnly, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
	t.Run("an unreadable definition", func(t *testing.T) {
		j2 := *j
		j2.Definition = []byte(`{`)
		u := NewJobPageView(row, &j2, ParseStored(j2.Definition), "", p, true)
		if u.Head.Problem == "" || u.Head.Description != "Unreadable definition" || u.Head.Zone != "UTC" || u.Head.Target != "" || !u.HistoryOnly {
			t.Errorf("got %+v", u.Head)
		}
	})
}

func TestJobStatus(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	next := []time.Time{time.Date(2026, 12, 25, 8, 0, 0, 0, time.UTC), time.Date(2026, 12, 26, 8, 0, 0, 0, time.UTC)}
	lastRun := now.Add(-time.Hour)
	for _, tc := range []struct {
		name       string
		state      string
		collection string
		last       *models.HistoryEntry
		next       []time.Time
		check      func(t *testing.T, s JobStatus)
	}{
		{"enabled with runs to come", "enabled", "Enabled", &models.HistoryEntry{StartTime: lastRun, Status: models.StatusFailed}, next,
			func(t *testing.T, s JobStatus) {
				if !s.CanRun || s.CanEnable || !s.CanDisable || s.CollectionNote != "" {
					t.Errorf("buttons: %+v", s)
				}
				if len(s.Next) != 2 || s.Next[0].Local != "Fri 25 Dec 2026 09:00:00 CET" || s.Next[0].Relative != "in 20 h" || s.NextNote != "" {
					t.Errorf("next: %+v, %q", s.Next, s.NextNote)
				}
				if s.LastResult != (BadgeView{"Failed", ToneBad}) || s.LastRun.Relative != "1 h ago" {
					t.Errorf("last: %+v %+v", s.LastResult, s.LastRun)
				}
				if s.Zone != "Europe/Berlin" || s.Badge != (BadgeView{"Enabled", ToneGood}) {
					t.Errorf("zone, badge: %q %+v", s.Zone, s.Badge)
				}
				if s.RunURL != "/c/default/rg/jc/jobs/nightly/run" || s.DeleteURL != "/c/default/rg/jc/jobs/nightly/delete" {
					t.Errorf("urls: %q %q", s.RunURL, s.DeleteURL)
				}
			}},
		{"disabled", "disabled", "Enabled", nil, nil, func(t *testing.T, s JobStatus) {
			if s.CanRun || !s.CanEnable || s.CanDisable {
				t.Errorf("buttons: %+v", s)
			}
			if s.NextNote != "The job is disabled: nothing is scheduled. Enabling it schedules it from then on." {
				t.Errorf("note: %q", s.NextNote)
			}
			if !s.LastRun.IsZero() || s.LastResult != (BadgeView{}) {
				t.Errorf("last: %+v", s.LastRun)
			}
		}},
		{"completed", "completed", "Enabled", nil, nil, func(t *testing.T, s JobStatus) {
			if s.NextNote != "The job is completed: no occurrence is left." {
				t.Errorf("note: %q", s.NextNote)
			}
		}},
		{"faulted", "faulted", "Enabled", nil, nil, func(t *testing.T, s JobStatus) {
			if s.NextNote != "The job is faulted: its last occurrence failed and none is left." {
				t.Errorf("note: %q", s.NextNote)
			}
		}},
		{"in a suspended collection", "enabled", "Suspended", nil, next, func(t *testing.T, s JobStatus) {
			if s.CanRun || s.CollectionNote != "The collection jc is suspended: none of its jobs runs until it is enabled again." {
				t.Errorf("got %v %q", s.CanRun, s.CollectionNote)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row, j, pj := berlinJob(t)
			row.State, j.State, j.ExecutionCount = models.CollectionState(tc.collection), jobdef.State(tc.state), 12345
			s := NewJobStatus(row, j, pj, tc.last, tc.next, now)
			if s.Executions != "12,345" {
				t.Errorf("executions: %q", s.Executions)
			}
			tc.check(t, s)
		})
	}
}

func TestHistoryTable(t *testing.T) {
	row, j := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	entries := func(n int) []models.HistoryEntry {
		var out []models.HistoryEntry
		for i := range n {
			start := now.Add(-time.Duration(i+1) * time.Minute)
			out = append(out, models.HistoryEntry{ID: int64(100 - i), StartTime: start, ExpectedExecutionTime: start,
				ActionName: models.MainAction, Status: models.StatusCompleted, RepeatCount: int64(100 - i), Message: "done\nmore"})
		}
		return out
	}
	cursor := HistoryParams{Status: models.StatusCompleted, BeforeStart: now, BeforeID: 101}
	for _, tc := range []struct {
		name               string
		p                  HistoryParams
		n                  int
		url, older, newest string
		rows               int
		filtered           bool
	}{
		{"one page", HistoryParams{}, 3, "/c/default/rg/jc/jobs/nightly/history", "", "", 3, false},
		{"more pages", HistoryParams{}, HistoryPageSize + 1, "/c/default/rg/jc/jobs/nightly/history",
			"/c/default/rg/jc/jobs/nightly/history?before=2026-12-24T11%3A40%3A00Z%2C81", "", HistoryPageSize, false},
		{"filtered, after a cursor", cursor, 1,
			"/c/default/rg/jc/jobs/nightly/history?before=2026-12-24T12%3A00%3A00Z%2C101&status=Completed", "",
			"/c/default/rg/jc/jobs/nightly/history?status=Completed", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistoryTable(row, j, tc.p, entries(tc.n), now)
			if h.URL != tc.url || h.OlderURL != tc.older || h.NewestURL != tc.newest || len(h.Rows) != tc.rows || h.Filtered != tc.filtered {
				t.Errorf("got URL %q, older %q, newest %q, %d rows, filtered %v", h.URL, h.OlderURL, h.NewestURL, len(h.Rows), h.Filtered)
			}
		})
	}
	t.Run("a row", func(t *testing.T) {
		start := now.Add(-2 * time.Hour)
		end := start.Add(1500 * time.Millisecond)
		late := int64(2500)
		h := NewHistoryTable(row, j, HistoryParams{}, []models.HistoryEntry{{ID: 5, StartTime: start, EndTime: &end,
			ExpectedExecutionTime: start.Add(-2500 * time.Millisecond), ActionName: models.ErrorAction, Status: models.StatusFailed,
			RetryCount: 2, RepeatCount: 9, LatenessMs: &late, Message: "boom\ntrace"}}, now)
		want := HistoryRow{ID: "5", Start: InstantIn(start, time.UTC, now), Expected: InstantIn(start.Add(-2500*time.Millisecond), time.UTC, now),
			Badge: BadgeView{"Failed", ToneBad}, Action: string(models.ErrorAction), Attempt: "2", Occurrence: "#9",
			Lateness: "2.5 s", Duration: "1.5 s", Summary: "boom …", Message: "boom\ntrace",
			DetailURL: "/c/default/rg/jc/jobs/nightly/history/5", RerunURL: "/c/default/rg/jc/jobs/nightly/history/5/rerun"}
		if !reflect.DeepEqual(h.Rows[0], want) || h.Zone != "UTC" {
			t.Errorf("got %+v, want %+v", h.Rows[0], want)
		}
	})
}

func TestJobDeleteView(t *testing.T) {
	row, j := timelineJob()
	got := NewJobDeleteView(row, j, "tok", "Confirm")
	want := JobDeleteView{Name: "nightly", Collection: "jc", URL: "/c/default/rg/jc/jobs/nightly/delete",
		CancelURL: "/c/default/rg/jc/jobs/nightly", CSRFToken: "tok", Error: "Confirm"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
