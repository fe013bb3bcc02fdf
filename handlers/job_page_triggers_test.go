package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// TestJobPageShowsTheChainBothWays checks the job page's "Runs after" and
// "Triggers" links and description, and an execution's "Triggered by" and
// "Triggered" links.
func TestJobPageShowsTheChainBothWays(t *testing.T) {
	f := newPGFixture(t)
	action := `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}`
	up := f.putJob(f.coll, "extract", `{`+action+`,"recurrence":{"frequency":"day"}}`)
	down := f.putJob(f.coll, "report", `{`+action+`,"trigger":{"after":["rg/jc/extract"]}}`)

	r := f.get(f.base + "/jobs/report")
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#job-description").Text(); got != "Runs after rg/jc/extract succeeds" {
		t.Errorf("description %q", got)
	}
	link := r.doc.Find("#job-runs-after a")
	if link.Length() != 1 || link.Text() != "rg/jc/extract" || link.AttrOr("href", "") != f.base+"/jobs/extract" {
		t.Errorf("runs after: %d links, %q → %q", link.Length(), link.Text(), link.AttrOr("href", ""))
	}
	if r.doc.Find("#job-next li").Length() != 0 {
		t.Error("a triggered job lists next occurrences")
	}
	r = f.get(f.base + "/jobs/extract")
	link = r.doc.Find("#job-triggers a")
	if link.Length() != 1 || link.Text() != "rg/jc/report" || link.AttrOr("href", "") != f.base+"/jobs/report" {
		t.Errorf("triggers: %d links, %q → %q", link.Length(), link.Text(), link.AttrOr("href", ""))
	}

	now := f.clock.Now()
	ue := f.addHistory(up.ID, now.Add(-time.Minute), models.StatusCompleted, models.MainAction, 0, "200 OK")
	de := f.addHistory(down.ID, now.Add(-59*time.Second), models.StatusCompleted, models.MainAction, 0, "200 OK")
	f.sql(`INSERT INTO job_trigger_causes (downstream_id, expected_time, upstream_id, upstream_history_id, upstream_ended_at)
		VALUES ($1, $2, $3, $4, $5)`, down.ID, de.ExpectedExecutionTime, up.ID, ue.ID, *ue.EndTime)
	r = f.get(f.base + "/jobs/report/history/" + strconv.FormatInt(de.ID, 10))
	wantStatus(t, r, http.StatusOK)
	link = r.doc.Find("#execution-triggered-by a")
	if link.Length() != 1 || !strings.HasPrefix(link.Text(), "rg/jc/extract, ended ") ||
		link.AttrOr("href", "") != f.base+"/jobs/extract/history/"+strconv.FormatInt(ue.ID, 10) {
		t.Errorf("triggered by: %d links, %q → %q", link.Length(), link.Text(), link.AttrOr("href", ""))
	}
	r = f.get(f.base + "/jobs/extract/history/" + strconv.FormatInt(ue.ID, 10))
	link = r.doc.Find("#execution-triggered a")
	if link.Length() != 1 || !strings.HasPrefix(link.Text(), "rg/jc/report, run of ") || link.AttrOr("href", "") != f.base+"/jobs/report/history" {
		t.Errorf("triggered: %d links, %q → %q", link.Length(), link.Text(), link.AttrOr("href", ""))
	}
}
