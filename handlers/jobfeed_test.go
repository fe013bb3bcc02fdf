package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// feedJobJSON is a weekday job given as a cron line, with a startTime in
// the past so that its preview from now is what the engine runs.
const feedJobJSON = `{"action":{"type":"https","request":{"uri":"https://example.com/hook","method":"POST"},"timeout":"PT90S"},
	"startTime":"2026-01-01T00:00:00","recurrence":{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin"}}`

// expectedRuns is the preview of a job (recurrence.Occurrences from now),
// which the feed and the job page must list.
func expectedRuns(t *testing.T, body string, now time.Time, n int) []time.Time {
	t.Helper()
	job, err := jobdef.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	occ, err := recurrence.Occurrences(job, now, n)
	if err != nil {
		t.Fatal(err)
	}
	return occ
}

// fetchFeed gets a feed URL without any session and parses it.
func fetchFeed(t *testing.T, f *pgFixture, feedURL string) (*response, *ics.Calendar) {
	t.Helper()
	u, err := url.Parse(feedURL)
	if err != nil {
		t.Fatal(err)
	}
	r := f.do(newClient(), http.MethodGet, u.RequestURI(), nil, nil)
	if r.StatusCode != http.StatusOK {
		return r, nil
	}
	cal, err := ics.ParseCalendar(strings.NewReader(r.body))
	if err != nil {
		t.Fatalf("the feed does not parse: %v\n%s", err, r.body)
	}
	return r, cal
}

// TestJobFeed checks the job page's cron line and feed URL, and the feed:
// text/calendar without a session, 200 events at the preview's instants
// (the first ten also on the job page), stable UIDs, the job's name, its
// action and page, the action's timeout as the duration; a wrong, missing
// or other job's token, and an unknown job, answer the same 404.
func TestJobFeed(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	j := f.putJob(f.coll, "weekday-report", feedJobJSON)
	want := expectedRuns(t, feedJobJSON, now, 200)
	f.schedule(j.ID, want[0])
	other := f.putJob(f.coll, "other", pgJobJSON)

	page := f.get(f.base + "/jobs/weekday-report")
	wantStatus(t, page, http.StatusOK)
	if got := page.doc.Find("#job-cron code").Text(); got != "15 5 * * 1-5" {
		t.Errorf("cron on the job page: %q", got)
	}
	feedURL := page.doc.Find("#job-feed-url").AttrOr("value", "")
	if !strings.HasPrefix(feedURL, "http://") || !strings.Contains(feedURL, "/c/default/rg/jc/jobs/weekday-report/calendar.ics?token=") {
		t.Fatalf("feed URL %q", feedURL)
	}
	if page.doc.Find(`#job-feed-copy[data-copy-target="job-feed-url"]`).Length() != 1 {
		t.Error("no copy button for the feed URL")
	}

	r, cal := fetchFeed(t, f, feedURL)
	if cal == nil {
		t.Fatalf("feed: %d %s", r.StatusCode, r.body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
		t.Errorf("content type %q", ct)
	}
	events := cal.Events()
	if len(events) != 200 {
		t.Fatalf("%d events, want 200", len(events))
	}
	uids := map[string]bool{}
	for i, ev := range events {
		start, err := ev.GetStartAt()
		if err != nil {
			t.Fatal(err)
		}
		if !start.Equal(want[i]) {
			t.Fatalf("event %d at %s, the preview says %s", i, start, want[i])
		}
		if p := ev.GetProperty(ics.ComponentPropertyDtStart); !strings.HasSuffix(p.Value, "Z") {
			t.Errorf("DTSTART %q not in UTC", p.Value)
		}
		uids[ev.Id()] = true
		if i == 0 {
			if got := ev.GetProperty(ics.ComponentPropertySummary).Value; got != "weekday-report" {
				t.Errorf("summary %q", got)
			}
			if got := ev.GetProperty(ics.ComponentPropertyDuration).Value; got != "PT1M30S" {
				t.Errorf("duration %q", got)
			}
			desc := ev.GetProperty(ics.ComponentPropertyDescription).Value
			if !strings.Contains(desc, "POST https://example.com/hook") || !strings.Contains(desc, "/c/default/rg/jc/jobs/weekday-report") {
				t.Errorf("description %q", desc)
			}
			if u := ev.GetProperty(ics.ComponentPropertyUrl).Value; !strings.HasSuffix(u, "/c/default/rg/jc/jobs/weekday-report") {
				t.Errorf("URL %q", u)
			}
		}
	}
	if len(uids) != 200 {
		t.Errorf("%d distinct UIDs for 200 events", len(uids))
	}
	_, again := fetchFeed(t, f, feedURL)
	if again.Events()[0].Id() != events[0].Id() {
		t.Error("the UID of an instant changed between two fetches")
	}
	next := page.doc.Find("#job-next time[datetime]")
	if next.Length() != 10 {
		t.Fatalf("job page: %d next runs", next.Length())
	}
	for i := range 10 {
		if got := next.Eq(i).AttrOr("datetime", ""); got != want[i].Format(time.RFC3339) {
			t.Errorf("job page run %d: %s, feed %s", i, got, want[i].Format(time.RFC3339))
		}
	}

	token := strings.SplitN(feedURL, "token=", 2)[1]
	otherPage := f.get(f.base + "/jobs/other")
	otherToken := strings.SplitN(otherPage.doc.Find("#job-feed-url").AttrOr("value", ""), "token=", 2)[1]
	if otherToken == token || other.ID == j.ID {
		t.Fatal("two jobs share a feed token")
	}
	feed := f.base + "/jobs/weekday-report/calendar.ics"
	var bodies []string
	for _, path := range []string{
		feed, feed + "?token=", feed + "?token=" + token[:len(token)-1] + "x", feed + "?token=" + otherToken,
		f.base + "/jobs/nope/calendar.ics?token=" + token, "/c/default/rg/nope/jobs/weekday-report/calendar.ics?token=" + token,
	} {
		r := f.do(newClient(), http.MethodGet, path, nil, nil)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, r.StatusCode)
		}
		bodies = append(bodies, r.doc.Find("main").Text())
	}
	if !strings.Contains(bodies[0], "There is no such calendar feed.") {
		t.Errorf("404 page: %q", bodies[0])
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("404 answers differ: %q vs %q", b, bodies[0])
		}
	}
}

// TestJobFeedHorizon checks that a monthly job's feed stops 400 days ahead.
func TestJobFeedHorizon(t *testing.T) {
	f := newPGFixture(t)
	now := f.clock.Now()
	body := strings.Replace(feedJobJSON, "15 5 * * 1-5", "0 6 L * *", 1)
	j := f.putJob(f.coll, "monthly", body)
	all := expectedRuns(t, body, now, 30)
	f.schedule(j.ID, all[0])
	var want []time.Time
	for _, o := range all {
		if o.Sub(now) <= 400*24*time.Hour {
			want = append(want, o)
		}
	}
	page := f.get(f.base + "/jobs/monthly")
	if got := page.doc.Find("#job-cron code").Text(); got != "0 6 L * *" {
		t.Errorf("cron %q", got)
	}
	_, cal := fetchFeed(t, f, page.doc.Find("#job-feed-url").AttrOr("value", ""))
	if cal == nil {
		t.Fatal("no feed")
	}
	if len(cal.Events()) != len(want) || len(want) < 13 {
		t.Fatalf("%d events, want the %d within 400 days", len(cal.Events()), len(want))
	}
	last, _ := cal.Events()[len(want)-1].GetStartAt()
	if !last.Equal(want[len(want)-1]) {
		t.Errorf("last event %s, want %s", last, want[len(want)-1])
	}
}

// TestJobFeedHonoursCalendars checks that the feed leaves out the runs a
// workspace calendar excludes, as the job page does.
func TestJobFeedHonoursCalendars(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, calBase+"/holidays",
		`{"entries":[{"from":"2027-03-01","to":"2027-03-02","label":"Closed"}]}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/daily"+apiVersion, calendarJobBody), http.StatusCreated)
	a.signIn("api", "password123")
	page := a.get("/c/default/rg/jc/jobs/daily")
	wantStatus(t, page, http.StatusOK)
	u, err := url.Parse(page.doc.Find("#job-feed-url").AttrOr("value", ""))
	if err != nil {
		t.Fatal(err)
	}
	r := a.do(newClient(), http.MethodGet, u.RequestURI(), nil, nil)
	wantStatus(t, r, http.StatusOK)
	cal, err := ics.ParseCalendar(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	events := cal.Events()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	first, _ := events[0].GetStartAt()
	if want := time.Date(2027, 3, 3, 9, 0, 0, 0, time.UTC); !first.Equal(want) {
		t.Errorf("first event %s, want %s (1 and 2 March are excluded)", first, want)
	}
}
