package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// nextDayJob runs at 09:00 Berlin every day, moving holidays' runs to the
// next day.
const nextDayJob = `{"action":{"type":"https","request":{"uri":"https://example.com/hook","method":"POST","body":"x"}},
	"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[9],"minutes":[0]},"timeZone":"Europe/Berlin",
	"calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}},"startTime":"2026-11-01T00:00:00"}`

// coreDayCounts counts, with the recurrence core alone, the runs of the
// named jobs from from to to per day of loc.
func (f *pgFixture) coreDayCounts(names []string, from, to time.Time, loc *time.Location) map[string]int {
	f.t.Helper()
	ctx := context.Background()
	cals, err := f.cat.WorkspaceCalendars(ctx, "default")
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]int{}
	for _, name := range names {
		j, err := f.store.JobByName(ctx, f.coll.ID, name)
		if err != nil {
			f.t.Fatal(err)
		}
		job, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true})
		if err != nil {
			f.t.Fatal(err)
		}
		rule, err := recurrence.CompileWith(job, *j.ScheduleBase, recurrence.Options{Calendars: cals})
		if err != nil {
			f.t.Fatal(err)
		}
		for t, ok := rule.Next(from.Add(-time.Nanosecond)); ok && t.Before(to); t, ok = rule.Next(t) {
			out[t.In(loc).Format("2006-01-02")]++
		}
	}
	return out
}

func TestMonthViewCountsEqualTheCore(t *testing.T) {
	f := newPGFixture(t)
	f.withHolidays()
	names := []string{"daily", "hourly", "nextday"}
	f.putJob(f.coll, "daily", dailyExcluding)
	f.putJob(f.coll, "hourly", pgJobJSON)
	f.putJob(f.coll, "nextday", nextDayJob)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		query string
		loc   *time.Location
		from  time.Time
		to    time.Time
	}{
		{"m=2026-12", time.UTC, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"m=2026-12&tz=Europe/Berlin", berlin, time.Date(2026, 12, 1, 0, 0, 0, 0, berlin), time.Date(2027, 1, 1, 0, 0, 0, 0, berlin)},
		// The current month: from now on.
		{"m=2026-11", time.UTC, f.clock.Now(), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		r := f.get("/w/default/month?" + tc.query)
		wantStatus(t, r, http.StatusOK)
		want := f.coreDayCounts(names, tc.from, tc.to, tc.loc)
		cells := r.doc.Find("#month-grid a[data-date]")
		if cells.Length() < 28 {
			t.Fatalf("%s: %d day cells", tc.query, cells.Length())
		}
		total := 0
		cells.Each(func(_ int, s *goquery.Selection) {
			date := s.AttrOr("data-date", "")
			got, _ := strconv.Atoi(s.AttrOr("data-runs", ""))
			total += got
			if got != want[date] {
				t.Errorf("%s: %s has %d runs, the core says %d", tc.query, date, got, want[date])
			}
		})
		if total == 0 {
			t.Errorf("%s: no runs at all", tc.query)
		}
	}
	r := f.get("/w/default/month?m=2026-12")
	eve := r.doc.Find(`#month-grid a[data-date="2026-12-24"]`)
	if eve.AttrOr("data-excluded", "") != "true" || !strings.Contains(eve.AttrOr("title", ""), "holidays: Christmas Eve") {
		t.Errorf("24 Dec is not shaded: %s", eve.AttrOr("title", ""))
	}
	if _, ok := r.doc.Find(`#month-grid a[data-date="2026-12-23"]`).Attr("data-excluded"); ok {
		t.Error("23 Dec is shaded")
	}
	// A day's runs: the fragment with the hours' heat map and the list.
	r = f.hxGet("/w/default/month/day?m=2026-12&d=2026-12-26")
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "month-day")
	if n := r.doc.Find("#hour-heat li").Length(); n != 24 {
		t.Errorf("%d hours in the heat map", n)
	}
	want := f.coreDayCounts(names, time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 27, 0, 0, 0, 0, time.UTC), time.UTC)
	if n := r.doc.Find("#day-runs tbody tr").Length(); n != want["2026-12-26"] {
		t.Errorf("%d runs listed on 26 Dec, the core says %d", n, want["2026-12-26"])
	}
	// Without htmx, the day is the month view with the day open.
	r = f.get("/w/default/month/day?m=2026-12&d=2026-12-26")
	wantRedirect(t, r, "/w/default/month?d=2026-12-26&m=2026-12")
	r = f.get("/w/default/month?d=2026-12-26&m=2026-12")
	if r.doc.Find("#month-day #hour-heat").Length() != 1 {
		t.Error("the month view with ?d= does not show the day")
	}
	pgWantErrorPage(t, f.get("/w/default/month?m=2026-13"), http.StatusBadRequest)
	pgWantErrorPage(t, f.get("/w/default/month?tz=Mars/Base"), http.StatusBadRequest)
}

// everyMinute runs every minute.
const everyMinute = `{"action":{"type":"https","request":{"uri":"https://example.com/hook","method":"GET"}},
	"recurrence":{"frequency":"minute","interval":1},"startTime":"2026-11-01T00:00:00Z"}`

func TestMonthViewCapsRunsPerJob(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "busy", everyMinute)
	r := f.get("/w/default/month?m=2026-12")
	wantStatus(t, r, http.StatusOK)
	total := 0
	r.doc.Find("#month-grid a[data-date]").Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.Atoi(s.AttrOr("data-runs", ""))
		total += n
	})
	if total != 10000 {
		t.Errorf("%d runs counted, want the cap of 10,000", total)
	}
	// 1,440 runs a day: the cap is reached on 7 December.
	if got := strings.Join(strings.Fields(r.doc.Find(`a[data-date="2026-12-06"]`).Text()), " "); got != "6 1,440 runs" {
		t.Errorf("6 Dec: %q", got)
	}
	if got := strings.Join(strings.Fields(r.doc.Find(`a[data-date="2026-12-07"]`).Text()), " "); got != "7 1,360+ runs" {
		t.Errorf("7 Dec: %q", got)
	}
	if got := strings.Join(strings.Fields(r.doc.Find(`a[data-date="2026-12-31"]`).Text()), " "); got != "31 0+ runs" {
		t.Errorf("31 Dec: %q", got)
	}
	if notes := r.doc.Find("#month-notes").Text(); !strings.Contains(notes, "rg/jc/busy runs more than 10,000 times this month") {
		t.Errorf("notes: %q", notes)
	}
	r = f.hxGet("/w/default/month/day?d=2026-12-10")
	if n := r.doc.Find("#day-runs tbody tr").Length(); n != 500 || !strings.Contains(r.doc.Find("#month-day").Text(), "and 940 more") {
		t.Errorf("a day of 1,440 runs lists %d", n)
	}
}
