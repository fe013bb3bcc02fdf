package web

import (
	"strings"
	"testing"
	"time"

	"sked/models"
)

func TestBackfillPreviewOf(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	ds := []models.BackfillDecision{
		{ExpectedTime: now.Add(-3 * time.Hour), Action: models.BackfillRun},
		{ExpectedTime: now.Add(-2 * time.Hour), Action: models.BackfillSkip, Reason: "already succeeded"},
		{ExpectedTime: now.Add(-1 * time.Hour), Action: models.BackfillRun},
	}
	p := BackfillPreviewOf(ds, berlin, now)
	if p.Run != 2 || p.Skip != 1 || len(p.Rows) != 3 || p.Hidden != 0 ||
		p.Description != "3 occurrences in the range: 2 to run, 1 skipped." {
		t.Fatalf("preview %+v", p)
	}
	if r := p.Rows[1]; r.Action.Text != "Skip" || r.Reason != "already succeeded" || !strings.Contains(r.When.Local, "11:00:00 CET") {
		t.Errorf("row %+v", r)
	}
	many := make([]models.BackfillDecision, MaxPreviewRows+7)
	for i := range many {
		many[i] = models.BackfillDecision{ExpectedTime: now, Action: models.BackfillRun}
	}
	if p := BackfillPreviewOf(many, nil, now); len(p.Rows) != MaxPreviewRows || p.Hidden != 7 || p.Run != MaxPreviewRows+7 {
		t.Errorf("capped preview: %d rows, %d hidden, %d run", len(p.Rows), p.Hidden, p.Run)
	}
}

func TestBackfillListOf(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	ended := now
	bs := []models.Backfill{
		{ID: 2, From: now.Add(-5 * time.Hour), To: now, Only: models.BackfillMissing, Order: models.BackfillNewestFirst,
			MaxConcurrent: 2, State: models.BackfillRunning, Total: 4, Skipped: 1, CreatedBy: "olga", CreatedAt: now,
			Queued: 1, Started: 2, Succeeded: 1},
		{ID: 1, From: now.Add(-5 * time.Hour), To: now, Only: models.BackfillAll, Order: models.BackfillOldestFirst,
			MaxConcurrent: 1, State: models.BackfillCancelled, Total: 3, CreatedBy: "ada", CreatedAt: now, EndedAt: &ended,
			Succeeded: 1, Cancelled: 2},
	}
	items := BackfillListOf(bs, nil, now, true, func(id int64) string { return "/cancel/" + string(rune('0'+id)) })
	if len(items) != 2 {
		t.Fatalf("%d items", len(items))
	}
	a, b := items[0], items[1]
	if a.State.Text != "Running" || a.CancelURL != "/cancel/2" || a.Percent != 25 ||
		a.Progress != "1 of 4 done: 1 succeeded, 0 failed, 0 cancelled; 2 running, 1 queued; 1 skipped" ||
		a.Settings != "missing ones, newest first, 2 at once" {
		t.Errorf("running item %+v", a)
	}
	if b.State.Text != "Cancelled" || b.CancelURL != "" || b.Percent != 100 {
		t.Errorf("cancelled item %+v", b)
	}
	if items := BackfillListOf(bs, nil, now, false, nil); items[0].CancelURL != "" {
		t.Error("a reader gets a Cancel button")
	}
	if BackfillSeen(bs) != "2.6" {
		t.Errorf("seen %q", BackfillSeen(bs))
	}
}

func TestRunChangesJSON(t *testing.T) {
	for _, tc := range []struct{ headers, body, want string }{
		{"", "", `{"request":{}}`},
		{"X-Replay: 1\n\n  Authorization: Bearer x  \nX-Replay: 2", "", `{"request":{"headers":{"X-Replay":"2","Authorization":"Bearer x"}}}`},
		{"", `{"a":1}`, `{"request":{"body":"{\"a\":1}"}}`},
	} {
		if got := string(RunChangesJSON(tc.headers, tc.body)); got != tc.want {
			t.Errorf("RunChangesJSON(%q, %q) = %s, want %s", tc.headers, tc.body, got, tc.want)
		}
	}
}
