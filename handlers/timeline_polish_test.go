package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// TestTimelineFirstRunAndSameSecond checks the job page of a job that never
// ran (it says when it first runs, no empty picture) and of a job with two
// runs in one second (two marks).
func TestTimelineFirstRunAndSameSecond(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "fresh", pgJobJSON)
	r := f.get(f.base + "/jobs/fresh")
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#timeline-first-run").Text(); !strings.Contains(got, "has not run yet") {
		t.Errorf("never ran: %q", got)
	}
	if _, hidden := r.doc.Find(`svg[data-testid="timeline"]`).Parent().Attr("hidden"); !hidden {
		t.Error("the empty picture shows for a job that never ran")
	}

	j := f.putJob(f.coll, "twice", pgJobJSON)
	at := f.clock.Now().Add(-time.Hour).Truncate(time.Second)
	f.addHistory(j.ID, at, "Completed", "MainAction", 5, "200 first")
	f.addHistory(j.ID, at.Add(400*time.Millisecond), "Completed", "MainAction", 5, "200 second")
	r = f.hxGet(f.base + "/jobs/twice/timeline?range=24h")
	wantStatus(t, r, http.StatusOK)
	var xs []string
	r.doc.Find(`svg[data-testid="timeline"] g.timeline-mark circle`).Each(func(_ int, s *goquery.Selection) {
		x, _ := s.Attr("cx")
		xs = append(xs, x)
	})
	if len(xs) != 2 || xs[0] == xs[1] {
		t.Errorf("two runs in one second drawn at %v", xs)
	}
	if r.doc.Find("#timeline-first-run").Length() != 0 {
		t.Error("a job with runs says it never ran")
	}
}
