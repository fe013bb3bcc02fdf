package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"

	"github.com/PuerkitoBio/goquery"
)

func TestDashboardShowsUpcomingFailuresAndTheLast24Hours(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	a := f.putJob(f.coll, "alpha", pgJobJSON)
	b := f.putJob(f.coll, "beta", pgJobJSON)
	f.schedule(a.ID, now.Add(90*time.Minute))
	f.schedule(b.ID, now.Add(30*time.Minute))
	f.addHistory(a.ID, now.Add(-3*time.Hour+time.Minute), models.StatusCompleted, models.MainAction, 40, "200 OK")
	f.addHistory(a.ID, now.Add(-3*time.Hour+2*time.Minute), models.StatusCompleted, models.MainAction, 40, "200 OK")
	f.addHistory(b.ID, now.Add(-1*time.Hour+5*time.Minute), models.StatusFailed, models.MainAction, 120, "500 Internal Server Error\nboom")
	f.addHistory(b.ID, now.Add(-30*time.Hour), models.StatusCompleted, models.MainAction, 0, "older than the picture")
	other := f.otherWorkspace()
	theirs, _ := f.store.JobByName(context.Background(), other.ID, "x")
	f.addHistory(theirs.ID, now.Add(-10*time.Minute), models.StatusFailed, models.MainAction, 0, "not yours")
	f.schedule(theirs.ID, now.Add(time.Minute))

	r := f.get("/")
	wantStatus(t, r, http.StatusOK)
	up := r.doc.Find("#upcoming li")
	if up.Length() != 2 {
		t.Fatalf("upcoming: %v", pgTexts(up))
	}
	if first := up.First(); !strings.Contains(first.Text(), "beta") ||
		first.Find("time").AttrOr("datetime", "") != "2026-11-21T13:30:00+01:00" || !strings.Contains(first.Text(), "in 30 min") ||
		!strings.Contains(first.Text(), "12:30:00 UTC") || !strings.Contains(first.Text(), "At 30 minutes past every hour (Europe/Berlin)") {
		t.Errorf("first upcoming occurrence: %q", strings.Join(strings.Fields(first.Text()), " "))
	}
	if href := up.First().Find("a").AttrOr("href", ""); href != "/c/default/rg/jc/jobs/beta" {
		t.Errorf("upcoming job link %q", href)
	}
	fails := r.doc.Find("#failures li")
	if fails.Length() != 1 || !strings.Contains(fails.Text(), "beta") || !strings.Contains(fails.Find("summary").Text(), "500 Internal Server Error") ||
		!strings.Contains(fails.Find("details pre").Text(), "boom") || strings.TrimSpace(fails.Find("span.rounded").First().Text()) != "Failed" {
		t.Errorf("failures: %v", pgTexts(fails))
	}
	if strings.Contains(r.body, "not yours") {
		t.Error("the dashboard shows a failure of a workspace the user is not a member of")
	}
	chart := r.doc.Find(`#activity svg[data-testid="activity-chart"]`)
	if chart.Length() != 1 {
		t.Fatal("no activity chart")
	}
	bars := chart.Find("g.activity-bar")
	if bars.Length() != 2 {
		t.Fatalf("bars with executions: %d, want 2 (%v)", bars.Length(), pgTexts(bars.Find("title")))
	}
	if got := bars.First().AttrOr("aria-label", ""); got != "09:00–10:00 UTC: 2 executions (2 Completed)" {
		t.Errorf("first bar label %q", got)
	}
	if got := bars.Eq(1).Find("title").Text(); got != "11:00–12:00 UTC: 1 execution (1 Failed)" {
		t.Errorf("second bar title %q", got)
	}
	if got := bars.First().AttrOr("tabindex", ""); got != "0" {
		t.Errorf("bars are not focusable: tabindex %q", got)
	}
	if got := strings.TrimSpace(bars.First().Find("text").Text()); got != "2" {
		t.Errorf("count label above the first bar %q", got)
	}
	if got := r.doc.Find("#activity-summary").Text(); got != "3 executions in the last 24 hours: 2 Completed, 1 Failed." {
		t.Errorf("summary %q", got)
	}
	if legend := pgTexts(r.doc.Find(`#activity ul[aria-label="Legend"] li`)); strings.Join(legend, "|") != "Completed|Failed|Postponed" {
		t.Errorf("legend %v", legend)
	}
	if got := chart.Find("text").FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Text() == "12:00" }).Length(); got != 0 {
		// The picture ends with the current hour: 12:00 is its last slot,
		// labelled only every third hour starting at 13:00 yesterday.
		t.Logf("12:00 labels: %d", got)
	}
	row := r.doc.Find("#collections tbody tr")
	if row.Length() != 1 || row.Find("a").AttrOr("href", "") != "/c/default/rg/jc" || !strings.Contains(row.Text(), "Enabled") {
		t.Errorf("collections: %v", pgTexts(row))
	}
}

func TestDashboardWithoutAnything(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	r := a.get("/")
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{"No execution in the last 24 hours.", "No occurrence is scheduled", "No failed execution.", "No job collections yet."} {
		if !strings.Contains(r.doc.Text(), want) {
			t.Errorf("empty dashboard without %q", want)
		}
	}
	if n := r.doc.Find("g.activity-bar").Length(); n != 0 {
		t.Errorf("empty chart has %d bars", n)
	}
}
