package web

import (
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/scheduler/forecast"
)

func TestWeeksOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		year        int
		month       time.Month
		weeks       int
		first, last [7]int
	}{
		{"December 2026 starts on a Tuesday", 2026, time.December, 5, [7]int{0, 1, 2, 3, 4, 5, 6}, [7]int{28, 29, 30, 31}},
		{"February 2027 is four whole weeks", 2027, time.February, 4, [7]int{1, 2, 3, 4, 5, 6, 7}, [7]int{22, 23, 24, 25, 26, 27, 28}},
		{"August 2027 spans six weeks", 2027, time.August, 6, [7]int{0, 0, 0, 0, 0, 0, 1}, [7]int{30, 31}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := weeksOf(tc.year, tc.month)
			if len(w) != tc.weeks || w[0] != tc.first || w[len(w)-1] != tc.last {
				t.Errorf("got %v", w)
			}
		})
	}
}

func TestHeatLevel(t *testing.T) {
	for _, tc := range []struct{ n, busiest, want int }{
		{0, 10, 0}, {5, 0, 0}, {1, 10, 1}, {3, 10, 1}, {4, 10, 2}, {7, 10, 3}, {9, 10, 3}, {10, 10, 4}, {1, 1, 4},
	} {
		t.Run(FormatCount(tc.n)+" of "+FormatCount(tc.busiest), func(t *testing.T) {
			if got := heatLevel(tc.n, tc.busiest); got != tc.want {
				t.Errorf("heatLevel(%d, %d) = %d, want %d", tc.n, tc.busiest, got, tc.want)
			}
		})
	}
}

// december is a forecast of December 2026 with runs on a few days.
func december() *forecast.Month {
	m := &forecast.Month{Year: 2026, Month: time.December, Jobs: 3, Capped: []string{"rg/jc/often"}}
	for d := 1; d <= 31; d++ {
		m.Days = append(m.Days, forecast.Day{Date: caldef.Date{Year: 2026, Month: time.December, Day: d}})
	}
	m.Days[0].Runs = 1
	m.Days[23].Runs, m.Days[23].Excluded = 4, []string{"holidays: Christmas Eve", "shop: closed"}
	m.Days[30].Runs, m.Days[30].Capped = 10000, true
	return m
}

func TestMonthPageView(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	p := MonthParams{Loc: berlin, Zone: "Europe/Berlin", Year: 2026, Month: time.December}
	now := time.Date(2026, 12, 10, 23, 30, 0, 0, time.UTC) // 11 December in Berlin
	v := NewMonthPageView("my ws", p, december(), now)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"title", []string{v.Title, v.Month, v.Zone}, []string{"December 2026", "2026-12", "Europe/Berlin"}},
		{"links", []string{v.Action, v.ListURL, v.PrevURL, v.NextURL}, []string{"/w/my%20ws/month", "/w/my%20ws/calendars",
			"/w/my%20ws/month?m=2026-11&tz=Europe%2FBerlin", "/w/my%20ws/month?m=2027-01&tz=Europe%2FBerlin"}},
		{"jobs", v.JobsText, "3 enabled jobs counted"},
		{"weeks", len(v.Weeks), 5},
		{"empty cell", v.Weeks[0][0], MonthDayCell{}},
		{"first day", v.Weeks[0][1], MonthDayCell{Day: 1, Date: "2026-12-01", Count: "1 run", Runs: 1, Past: true, Level: 1,
			URL: "/w/my%20ws/month/day?d=2026-12-01&m=2026-12&tz=Europe%2FBerlin"}},
		{"today is not past", v.Weeks[1][4].Past, false},
		{"yesterday is", v.Weeks[1][3].Past, true},
		{"excluded", v.Weeks[3][3].Excluded, "holidays: Christmas Eve; shop: closed"},
		{"a quiet day beside the busiest", v.Weeks[3][3].Level, 1},
		{"capped", []any{v.Weeks[4][3].Count, v.Weeks[4][3].Level}, []any{"10,000+ runs", 4}},
		{"no run", []any{v.Weeks[2][0].Count, v.Weeks[2][0].Level}, []any{"0 runs", 0}},
		{"notes", v.Notes, []string{"Runs are forecast from now on: earlier days count none.",
			"rg/jc/often runs more than 10,000 times this month: its runs are counted up to there (days marked +)."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
	t.Run("a later month in UTC", func(t *testing.T) {
		m := december()
		m.MoreJobs, m.Capped, m.Problems = true, nil, []string{"rg/jc/bad: unreadable"}
		v := NewMonthPageView("w", MonthParams{Loc: time.UTC, Zone: "UTC", Year: 2026, Month: time.December}, m, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		want := []string{"Only the first 2,000 enabled jobs are counted: the workspace has more.", "Not counted: rg/jc/bad: unreadable"}
		if !reflect.DeepEqual(v.Notes, want) || v.PrevURL != "/w/w/month?m=2026-11" || v.Weeks[0][1].Past {
			t.Errorf("got %q, %q, past %v", v.Notes, v.PrevURL, v.Weeks[0][1].Past)
		}
	})
}

func TestDayRunsView(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	p := MonthParams{Loc: berlin, Zone: "Europe/Berlin", Year: 2026, Month: time.December}
	d := &forecast.Day{Date: caldef.Date{Year: 2026, Month: time.December, Day: 24}, Runs: 3, Excluded: []string{"holidays: Christmas Eve"}, More: 1}
	d.Hours[9], d.Hours[10] = 2, 1
	at := time.Date(2026, 12, 24, 8, 0, 0, 0, time.UTC)
	d.List = []forecast.Run{{At: at, Job: models.ForecastJob{ResourceGroup: "rg", Collection: "jc", Name: "a job"}}}
	for _, tc := range []struct {
		name  string
		now   time.Time
		more  bool
		capd  bool
		notes []string
	}{
		{"a day to come", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false, false, nil},
		{"a past day, more jobs, capped", time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC), true, true, []string{
			"A job runs more than 10,000 times this day: its runs are counted up to there.",
			"Only the first 2,000 enabled jobs are counted.",
			"This day is past: runs are forecast from now on."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			day := *d
			day.Capped = tc.capd
			v := NewDayRunsView("w", p, &day, tc.more, tc.now)
			if !reflect.DeepEqual(v.Notes, tc.notes) {
				t.Errorf("notes %q, want %q", v.Notes, tc.notes)
			}
			if v.Date != "Thursday 24 December 2026" || v.Excluded != "holidays: Christmas Eve" || v.More != 1 || len(v.Hours) != 24 {
				t.Errorf("got %+v", v)
			}
			if v.Hours[9] != (HourCell{Hour: "09", Count: 2, Level: 4}) || v.Hours[10] != (HourCell{Hour: "10", Count: 1, Level: 2}) {
				t.Errorf("hours %+v %+v", v.Hours[9], v.Hours[10])
			}
			want := RunRow{Time: "09:00:00", UTC: "08:00 UTC", Job: "rg/jc/a job", URL: "/c/w/rg/jc/jobs/a%20job"}
			if v.Runs[0] != want {
				t.Errorf("run %+v, want %+v", v.Runs[0], want)
			}
		})
	}
}
