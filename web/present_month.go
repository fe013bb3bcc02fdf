package web

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"sked/models/caldef"
	"sked/scheduler/forecast"
)

// The presenters of the month view: the grid of a workspace's runs to come
// and one day's runs.

// MonthParams are the month view's query: the month (default the current
// one), the zone of its days (Loc, named Zone, default UTC) and a chosen
// day (nil for none).
type MonthParams struct {
	Loc   *time.Location
	Zone  string
	Year  int
	Month time.Month
	Day   *caldef.Date
}

// monthQuery is the month view's query for month m, day d ("" for none)
// in the zone of p.
func monthQuery(p MonthParams, m, d string) string {
	q := url.Values{"m": {m}}
	if d != "" {
		q.Set("d", d)
	}
	if p.Zone != "UTC" {
		q.Set("tz", p.Zone)
	}
	return q.Encode()
}

// NewMonthPageView is the month grid of workspace ws for p at now, from
// the forecast m.
func NewMonthPageView(ws string, p MonthParams, m *forecast.Month, now time.Time) MonthPageView {
	first := time.Date(p.Year, p.Month, 1, 0, 0, 0, 0, time.UTC)
	ym := first.Format("2006-01")
	v := MonthPageView{Workspace: ws, Title: first.Format("January 2006"), Month: ym, Zone: p.Zone,
		Action: MonthPath(ws), ListURL: CalendarsPath(ws), Jobs: m.Jobs, JobsText: plural(m.Jobs, "enabled job") + " counted",
		PrevURL: MonthPath(ws) + "?" + monthQuery(p, first.AddDate(0, -1, 0).Format("2006-01"), ""),
		NextURL: MonthPath(ws) + "?" + monthQuery(p, first.AddDate(0, 1, 0).Format("2006-01"), "")}
	today := caldef.DateOf(now.In(p.Loc))
	busiest := 0
	for _, d := range m.Days {
		busiest = max(busiest, d.Runs)
	}
	for _, week := range weeksOf(p.Year, p.Month) {
		row := make([]MonthDayCell, 7)
		for i, day := range week {
			if day == 0 {
				continue
			}
			d := m.Days[day-1]
			count := runsText(d.Runs, d.Capped)
			row[i] = MonthDayCell{Day: day, Date: d.Date.String(), Count: count, Runs: d.Runs, Past: d.Date.Before(today),
				Excluded: strings.Join(d.Excluded, "; "), Level: heatLevel(d.Runs, busiest),
				URL: MonthDayPath(ws) + "?" + monthQuery(p, ym, d.Date.String())}
		}
		v.Weeks = append(v.Weeks, row)
	}
	v.Notes = monthNotes(m, today)
	return v
}

// monthNotes say what the counts leave out.
func monthNotes(m *forecast.Month, today caldef.Date) []string {
	var notes []string
	first := caldef.Date{Year: m.Year, Month: m.Month, Day: 1}
	if !today.Before(first) {
		notes = append(notes, "Runs are forecast from now on: earlier days count none.")
	}
	if m.MoreJobs {
		notes = append(notes, fmt.Sprintf("Only the first %s enabled jobs are counted: the workspace has more.", FormatCount(forecast.MaxJobs)))
	}
	for _, j := range m.Capped {
		notes = append(notes, fmt.Sprintf("%s runs more than %s times this month: its runs are counted up to there (days marked +).", j, FormatCount(forecast.PerJobCap)))
	}
	for _, p := range m.Problems {
		notes = append(notes, "Not counted: "+p)
	}
	return notes
}

// NewDayRunsView is the runs of workspace ws on the day of the forecast d;
// more says the workspace has more enabled jobs than were counted.
func NewDayRunsView(ws string, p MonthParams, d *forecast.Day, more bool, now time.Time) DayRunsView {
	v := DayRunsView{Date: d.Date.Time().Format("Monday 2 January 2006"), Zone: p.Zone, Total: runsText(d.Runs, d.Capped),
		Excluded: strings.Join(d.Excluded, "; "), More: d.More}
	if d.Capped {
		v.Notes = append(v.Notes, fmt.Sprintf("A job runs more than %s times this day: its runs are counted up to there.", FormatCount(forecast.PerJobCap)))
	}
	if more {
		v.Notes = append(v.Notes, fmt.Sprintf("Only the first %s enabled jobs are counted.", FormatCount(forecast.MaxJobs)))
	}
	if d.Date.Before(caldef.DateOf(now.In(p.Loc))) {
		v.Notes = append(v.Notes, "This day is past: runs are forecast from now on.")
	}
	busiest := 0
	for _, n := range d.Hours {
		busiest = max(busiest, n)
	}
	for h, n := range d.Hours {
		v.Hours = append(v.Hours, HourCell{Hour: fmt.Sprintf("%02d", h), Count: n, Level: heatLevel(n, busiest)})
	}
	for _, r := range d.List {
		v.Runs = append(v.Runs, RunRow{Time: r.At.In(p.Loc).Format("15:04:05"), UTC: r.At.UTC().Format("15:04 UTC"),
			Job: r.Job.Path(), URL: JobPath(ws, r.Job.ResourceGroup, r.Job.Collection, r.Job.Name)})
	}
	return v
}

// heatLevel is 0 for no run, else 1 to 4 by n's share of the busiest.
func heatLevel(n, busiest int) int {
	if n <= 0 || busiest <= 0 {
		return 0
	}
	return min(1+(n*3)/busiest, 4)
}

// runsText is "1 run", "12 runs" or, capped, "10,000+ runs".
func runsText(n int, capped bool) string {
	if capped {
		return FormatCount(n) + "+ runs"
	}
	return plural(n, "run")
}

// plural is "1 run" or "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return FormatCount(n) + " " + noun + "s"
}
