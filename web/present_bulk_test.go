package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
)

func TestNewStateNote(t *testing.T) {
	now := time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)
	at := now.Add(-2 * time.Hour)
	for _, tc := range []struct {
		name       string
		state      jobdef.State
		note, by   string
		at         *time.Time
		text, tail string
	}{
		{"by, when and why", jobdef.Disabled, "waiting for the vendor's maintenance", "alice", &at,
			"Paused by alice 2 h ago: waiting for the vendor's maintenance", ": waiting for the vendor's maintenance"},
		{"no note", jobdef.Disabled, "", "alice", &at, "Paused by alice 2 h ago.", "."},
		{"nobody known", jobdef.Disabled, "x", "", &at, "Paused 2 h ago: x", ": x"},
		{"no time", jobdef.Disabled, "x", "", nil, "Paused: x", ": x"},
		{"this second", jobdef.Disabled, "x", "bob", &now, "Paused by bob just now: x", ": x"},
		{"disabled without anything", jobdef.Disabled, "", "", nil, "", ""},
		{"enabled shows none", jobdef.Enabled, "", "bob", &at, "", ""},
		{"completed shows none", jobdef.Completed, "old", "bob", &at, "", ""},
	} {
		got := NewStateNote(tc.state, tc.note, tc.by, tc.at, time.UTC, now)
		if got.Text != tc.text || got.Tail != tc.tail {
			t.Errorf("%s: %+v, want %q tail %q", tc.name, got, tc.text, tc.tail)
		}
	}
}

func TestBulkSummary(t *testing.T) {
	for _, tc := range []struct {
		counts []BulkOutcomeCount
		want   string
	}{
		{[]BulkOutcomeCount{{"disabled", 48}, {"alreadyCompleted", 2}}, "48 disabled, 2 already completed."},
		{[]BulkOutcomeCount{{"started", 1}, {"notEnabled", 3}, {"alreadyFaulted", 0}}, "1 started, 3 not run (not enabled)."},
		{[]BulkOutcomeCount{{"deleted", 1200}}, "1,200 deleted."},
		{[]BulkOutcomeCount{{"alreadyEnabled", 2}}, "2 already enabled."},
		{nil, "Nothing was changed."},
	} {
		if got := BulkSummary(tc.counts); got != tc.want {
			t.Errorf("BulkSummary(%v) = %q, want %q", tc.counts, got, tc.want)
		}
	}
}

func TestNewBulkBar(t *testing.T) {
	filtered := AllJobsParams{Query: "pay", State: string(jobdef.Enabled), Sort: "name"}
	for _, tc := range []struct {
		name     string
		p        AllJobsParams
		shown    int
		matching int64
		want     string
	}{
		{"no rows", filtered, 0, 0, ""},
		{"one", filtered, 1, 1, "The 1 job that matches the filter"},
		{"counted", filtered, 50, 1234, "All 1,234 jobs that match the filter"},
		{"too many", filtered, 50, 5001, "All jobs that match the filter (more than 5,000: one action takes 5,000 at most)"},
		{"not counted", filtered, 50, -1, "All jobs that match the filter"},
		{"no filter", AllJobsParams{}, 3, 3, "All 3 of your jobs"},
	} {
		b := NewBulkBar(tc.p, tc.shown, tc.matching, 5000, "tok")
		if b.MatchLabel != tc.want {
			t.Errorf("%s: label %q, want %q", tc.name, b.MatchLabel, tc.want)
		}
	}
	b := NewBulkBar(filtered, 1, 1, 5000, "tok")
	var fields []string
	for _, f := range b.Filter {
		fields = append(fields, f.Name+"="+f.Value)
	}
	if strings.Join(fields, "&") != "q=pay&state=enabled" || b.Action != "/jobs/bulk" || b.NoteMax != 500 {
		t.Errorf("bar %+v: filter %v", b, fields)
	}
}

func TestNewBulkConfirm(t *testing.T) {
	var paths []string
	for i := range 23 {
		paths = append(paths, "default/rg/jc/job-"+string(rune('a'+i)))
	}
	form := url.Values{"csrf_token": {"t"}, "action": {"delete"}, "id": {"1", "2"}, "q": {"x"}}
	c := NewBulkConfirm(paths, form, "tok", "/jobs?q=x")
	if c.Title != "Delete 23 jobs?" || len(c.Names) != BulkConfirmNames || c.More != "and 3 more jobs" ||
		c.Button != "Delete 23 jobs and their history" {
		t.Errorf("confirm %+v", c)
	}
	var fields []string
	for _, f := range c.Hidden {
		fields = append(fields, f.Name+"="+f.Value)
	}
	if strings.Join(fields, "&") != "id=1&id=2&q=x" {
		t.Errorf("hidden fields %v, want the selection without the token and action", fields)
	}
}
