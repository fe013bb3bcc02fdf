package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
)

// pgHistory writes 45 entries (one a minute back from 11:00, statuses and
// actions in turn) and returns them by id.
func pgHistory(f *pgFixture, jobID int64) map[int64]*models.HistoryEntry {
	out := map[int64]*models.HistoryEntry{}
	statuses := []models.HistoryStatus{models.StatusCompleted, models.StatusFailed, models.StatusPostponed}
	for i := range 45 {
		action := models.MainAction
		if i%4 == 3 {
			action = models.ErrorAction
		}
		start := f.clock.Now().Add(-time.Hour - time.Duration(i/2)*time.Minute) // pairs share a start
		e := f.addHistory(jobID, start, statuses[i%3], action, int64(i), fmt.Sprintf("message %d\nsecond line", i))
		out[e.ID] = e
	}
	return out
}

func TestHistoryTableIsFilteredAndPagedByKeyset(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	all := pgHistory(f, j.ID)
	hist := f.base + "/jobs/alpha/history"

	for _, c := range []struct {
		query, status, action string
		want                  int
	}{
		{"", "", "", 45}, {"?status=Failed", "Failed", "", 15}, {"?action=ErrorAction", "", "ErrorAction", 11},
		{"?status=Completed&action=MainAction", "Completed", "MainAction", 11},
	} {
		seen := map[string]bool{}
		var order []int64
		next := hist + c.query
		for pages := 0; next != ""; pages++ {
			if pages > 5 {
				t.Fatalf("%s: paging does not end", c.query)
			}
			r := f.hxGet(next)
			wantStatus(t, r, http.StatusOK)
			pgWantFragment(t, r, "history-table")
			rows := r.doc.Find("tbody tr")
			if rows.Length() > 20 {
				t.Fatalf("%s: %d rows on a page", c.query, rows.Length())
			}
			rows.Each(func(_ int, tr *goquery.Selection) {
				id := strings.TrimPrefix(tr.AttrOr("id", ""), "history-")
				if seen[id] {
					t.Errorf("%s: entry %s on two pages", c.query, id)
				}
				seen[id] = true
				var n int64
				fmt.Sscan(id, &n)
				e := all[n]
				if e == nil {
					t.Fatalf("%s: unknown entry %s", c.query, id)
				}
				order = append(order, n)
				cells := tr.Find("td")
				if got := strings.TrimSpace(cells.Eq(1).Text()); got != string(e.Status) || (c.status != "" && got != c.status) {
					t.Errorf("%s: entry %d status %q, want %s", c.query, n, got, e.Status)
				}
				if got := strings.TrimSpace(cells.Eq(2).Text()); got != string(e.ActionName) || (c.action != "" && got != c.action) {
					t.Errorf("%s: entry %d action %q", c.query, n, got)
				}
				if got := cells.Eq(0).Find("time").First().AttrOr("datetime", ""); got != e.StartTime.In(pgBerlin(t)).Format(time.RFC3339) {
					t.Errorf("%s: entry %d start %q", c.query, n, got)
				}
				det := cells.Last().Find("details")
				if det.Find("summary").Text() != e.Message[:strings.Index(e.Message, "\n")]+" …" {
					t.Errorf("%s: entry %d summary %q", c.query, n, det.Find("summary").Text())
				}
				if !strings.Contains(det.Find("pre").Text(), "second line") {
					t.Errorf("%s: entry %d does not open its whole message", c.query, n)
				}
			})
			older := r.doc.Find("#history-older")
			next = older.AttrOr("href", "")
			if next != "" && (!strings.Contains(next, "before=") || older.AttrOr("hx-get", "") != next) {
				t.Errorf("%s: older link %q", c.query, next)
			}
			if pages > 0 && r.doc.Find("#history-newest").Length() != 1 {
				t.Errorf("%s: page %d has no link to the newest entries", c.query, pages+1)
			}
		}
		if len(seen) != c.want {
			t.Errorf("%s: %d entries over all pages, want %d", c.query, len(seen), c.want)
		}
		for i := 1; i < len(order); i++ {
			p, e := all[order[i-1]], all[order[i]]
			if e.StartTime.After(p.StartTime) || (e.StartTime.Equal(p.StartTime) && e.ID > p.ID) {
				t.Errorf("%s: %d after %d is not newest first", c.query, e.ID, p.ID)
			}
		}
	}

	// The full history page has the filter form with labels, the timeline
	// and the table.
	r := f.get(hist + "?status=Failed")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find(`#history-filter select#history-status option[selected]`).AttrOr("value", "") != "Failed" ||
		r.doc.Find(`label[for="history-status"]`).Length() != 1 || r.doc.Find(`label[for="history-action"]`).Length() != 1 {
		t.Error("the filter form does not show the filter or lacks labels")
	}
	if r.doc.Find("#job-timeline").Length() != 1 || r.doc.Find("#history-table tbody tr").Length() != 15 {
		t.Errorf("history page: timeline %d, rows %d", r.doc.Find("#job-timeline").Length(), r.doc.Find("#history-table tbody tr").Length())
	}
	if r.doc.Find("#job-status").Length() != 0 {
		t.Error("the history page shows the job's buttons")
	}
	// Bad parameters are a 400 naming them.
	for _, q := range []string{"?status=Running", "?action=Other", "?before=yesterday,1", "?before=2026-11-21T10:00:00Z", "?before=2026-11-21T10:00:00Z,-4", "?range=1y"} {
		r := f.get(hist + q)
		pgWantErrorPage(t, r, http.StatusBadRequest)
	}
	empty := f.hxGet(hist + "?status=Postponed&action=ErrorAction&before=2020-01-01T00:00:00Z,1")
	if !strings.Contains(empty.doc.Text(), "No entry matches this filter.") {
		t.Errorf("empty filtered page: %q", empty.doc.Text())
	}
}

func pgBerlin(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestTimelineDrawsEachExecutionWithWordsAndLateness(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	now := f.clock.Now()
	f.addHistory(j.ID, now.Add(-2*time.Hour), models.StatusCompleted, models.MainAction, 80, "200 OK")
	f.addHistory(j.ID, now.Add(-90*time.Minute), models.StatusFailed, models.MainAction, 45*60*1000, "500 late")
	f.addHistory(j.ID, now.Add(-80*time.Minute), models.StatusFailed, models.ErrorAction, 10, "500")
	f.addHistory(j.ID, now.Add(-70*time.Minute), models.StatusPostponed, models.MainAction, 0, "Missed 3 occurrences")
	f.addHistory(j.ID, now.Add(-3*24*time.Hour), models.StatusCompleted, models.MainAction, 5, "200 three days ago")
	f.addHistory(j.ID, now.Add(-40*24*time.Hour), models.StatusCompleted, models.MainAction, 5, "200 forty days ago")
	tl := f.base + "/jobs/alpha/timeline?range="

	r := f.hxGet(tl + "24h")
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "job-timeline")
	svg := r.doc.Find(`svg[data-testid="timeline"]`)
	marks := svg.Find("g.timeline-mark")
	if marks.Length() != 4 {
		t.Fatalf("24 h: %d marks, want 4", marks.Length())
	}
	byStatus := map[string]int{}
	marks.Each(func(_ int, m *goquery.Selection) {
		byStatus[m.AttrOr("data-status", "")]++
		if m.AttrOr("tabindex", "") != "0" || m.AttrOr("aria-label", "") == "" || m.Find("title").Text() != m.AttrOr("aria-label", "") {
			t.Errorf("mark without focus, aria-label or title: %v", m.AttrOr("aria-label", ""))
		}
	})
	if byStatus["Completed"] != 1 || byStatus["Failed"] != 2 || byStatus["Postponed"] != 1 {
		t.Errorf("marks by status %v", byStatus)
	}
	// Shapes differ by status, not only colours.
	if svg.Find(`g[data-status="Completed"] circle`).Length() != 1 || svg.Find(`g[data-status="Failed"] rect`).Length() < 2 ||
		svg.Find(`g[data-status="Postponed"] polygon`).Length() != 1 {
		t.Error("the marks' shapes do not follow their status")
	}
	lanes := pgTexts(svg.Find("text.timeline-lane"))
	if strings.Join(lanes, "|") != "Completed|Failed|Postponed" {
		t.Errorf("lane labels %v", lanes)
	}
	late := svg.Find(`g[data-status="Failed"]`).First()
	if !strings.Contains(late.AttrOr("aria-label", ""), "45 min late") || late.Find("line").Length() != 2 {
		t.Errorf("the late mark: %q, %d lateness lines", late.AttrOr("aria-label", ""), late.Find("line").Length())
	}
	if first := svg.Find(`g[data-status="Completed"]`).AttrOr("aria-label", ""); first != "Completed, MainAction, retry count 1, started Sat 21 Nov 11:00:00 CET, expected Sat 21 Nov 10:59:59, 80 ms late, took 250 ms, 200 OK" {
		t.Errorf("completed mark label %q", first)
	}
	if got := r.doc.Find("#timeline-summary").Text(); !strings.HasPrefix(got, "4 executions in the last 24 hours: 1 Completed, 2 Failed, 1 Postponed.") {
		t.Errorf("summary %q", got)
	}
	if legend := pgTexts(r.doc.Find(`#job-timeline ul[aria-label="Legend"] li`)); len(legend) != 4 || legend[0] != "Completed (circle)" {
		t.Errorf("legend %v", legend)
	}
	ranges := r.doc.Find(`nav[aria-label="Timeline range"] a`)
	if got := pgTexts(ranges); strings.Join(got, "|") != "24 h|7 d|30 d|60 d" {
		t.Errorf("ranges %v", got)
	}
	if cur := r.doc.Find(`nav[aria-label="Timeline range"] a[aria-current]`); cur.Text() != "24 h" ||
		cur.AttrOr("hx-target", "") != "#job-timeline" || cur.AttrOr("hx-get", "") != tl+"24h" || cur.AttrOr("href", "") != f.base+"/jobs/alpha?range=24h" {
		t.Errorf("current range link %q hx-get %q href %q", cur.Text(), cur.AttrOr("hx-get", ""), cur.AttrOr("href", ""))
	}
	if ticks := svg.Find(`text[text-anchor="middle"]`).Length(); ticks < 6 {
		t.Errorf("24 h axis: %d labels", ticks)
	}

	for rng, want := range map[string]int{"7d": 5, "30d": 5, "60d": 6} {
		r := f.hxGet(tl + rng)
		if n := r.doc.Find("g.timeline-mark").Length(); n != want {
			t.Errorf("%s: %d marks, want %d", rng, n, want)
		}
	}
	// Without htmx the range link is the page at that range.
	wantRedirect(t, f.get(tl+"7d"), f.base+"/jobs/alpha/history?range=7d")
	page := f.get(f.base + "/jobs/alpha?range=7d")
	if page.doc.Find(`#job-timeline a[aria-current]`).Text() != "7 d" || page.doc.Find("g.timeline-mark").Length() != 5 {
		t.Error("the job page does not show the range it was asked for")
	}
}

func TestTimelineGroupsManyExecutions(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	now := f.clock.Now()
	f.sql(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status, message, lateness_ms)
		SELECT $1, $2::timestamptz - i * interval '1 minute', $2::timestamptz - i * interval '1 minute', 'MainAction',
		       CASE WHEN i % 10 = 0 THEN 'Failed' ELSE 'Completed' END, '', i
		FROM generate_series(1, 400) AS i`, j.ID, now)
	r := f.hxGet(f.base + "/jobs/alpha/timeline?range=24h")
	marks := r.doc.Find("g.timeline-mark")
	// 400 minutes in 15-minute groups: 27 or 28 groups of Completed,
	// and as many of Failed (one every 10 minutes).
	if marks.Length() < 40 || marks.Length() > 60 {
		t.Fatalf("%d group marks", marks.Length())
	}
	if !strings.Contains(r.doc.Text(), "each mark groups the executions of 15 min") {
		t.Error("no note that marks are groups")
	}
	if label := marks.First().AttrOr("aria-label", ""); !strings.Contains(label, "Completed executions, from") {
		t.Errorf("group label %q", label)
	}
	if got := r.doc.Find("#timeline-summary").Text(); !strings.HasPrefix(got, "400 executions in the last 24 hours: 360 Completed, 40 Failed.") {
		t.Errorf("summary %q", got)
	}
}

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
	f.addHistory(j.ID, at, models.StatusCompleted, models.MainAction, 5, "200 first")
	f.addHistory(j.ID, at.Add(400*time.Millisecond), models.StatusCompleted, models.MainAction, 5, "200 second")
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
