package web

import (
	"fmt"
	"strings"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/scheduler/recurrence"
)

// The presenters of the calendar pages: the list of a workspace's
// calendars, a calendar's year, its form and its delete confirmation.

// nextExcludedShown is how many coming excluded days the list shows.
const nextExcludedShown = 3

// NewCalendarsPageView is the calendars page of ws without its rows
// (NewCalendarRow); flash is the message of the previous request, others
// the user's other workspaces.
func NewCalendarsPageView(ws, flash string, others []JobLink) CalendarsPageView {
	return CalendarsPageView{Workspace: ws, NewURL: NewCalendarPath(ws), ImportURL: CalendarImportPath(ws, ""),
		MonthURL: MonthPath(ws), Flash: flash, Others: others}
}

// NewCalendarRow is the calendar row of ws at now in the list: cal is its
// definition, rc the compiled calendar, jobs those that exclude it.
func NewCalendarRow(ws string, row *models.Calendar, cal *caldef.Calendar, rc *recurrence.Calendar, jobs []models.JobRef, now time.Time) CalendarRow {
	r := CalendarRow{Name: row.Name, URL: CalendarPath(ws, row.Name), Zone: zoneName(cal), Entries: len(cal.Entries),
		Jobs: JobLinks(ws, jobs)}
	today := caldef.DateOf(now.In(cal.Location))
	for _, d := range rc.ExcludedDays(today, addDate(today, 0, 0, 400)) {
		if len(r.Next) == nextExcludedShown {
			break
		}
		r.Next = append(r.Next, dayText(d))
	}
	return r
}

// JobLinks links the jobs refs of ws.
func JobLinks(ws string, refs []models.JobRef) []JobLink {
	out := make([]JobLink, len(refs))
	for i, r := range refs {
		out[i] = JobLink{Name: r.String(), URL: JobPath(ws, r.ResourceGroup, r.Collection, r.Name)}
	}
	return out
}

// WorkspaceLinks links path of each workspace of all but ws.
func WorkspaceLinks(all []models.Workspace, ws string, path func(string) string) []JobLink {
	var out []JobLink
	for _, w := range all {
		if w.ID != ws {
			out = append(out, JobLink{Name: w.ID, URL: path(w.ID)})
		}
	}
	return out
}

// NewCalendarPageView is the page of the calendar row of ws for year: cal
// is its definition, rc the compiled calendar, jobs those that exclude it;
// flash is the message of the previous request.
func NewCalendarPageView(ws string, row *models.Calendar, cal *caldef.Calendar, rc *recurrence.Calendar, year int, jobs []models.JobRef, flash string) CalendarPageView {
	v := CalendarPageView{Workspace: ws, Name: row.Name, Version: row.Version, Year: year,
		ListURL: CalendarsPath(ws), EditURL: CalendarEditPath(ws, row.Name), ImportURL: CalendarImportPath(ws, row.Name),
		ExportURL: CalendarExportPath(ws, row.Name), DeleteURL: CalendarDeletePath(ws, row.Name),
		PrevURL: CalendarYearPath(ws, row.Name, year-1), NextURL: CalendarYearPath(ws, row.Name, year+1), Flash: flash}
	v.Zone, v.Description, v.Entries = zoneName(cal), cal.Description, len(cal.Entries)
	days := rc.ExcludedDays(caldef.Date{Year: year, Month: time.January, Day: 1}, caldef.Date{Year: year, Month: time.December, Day: 31})
	labels := map[caldef.Date]string{}
	for _, d := range days {
		labels[d.Date] = d.Label
		label := d.Label
		if label == "" {
			label = "excluded"
		}
		v.Days = append(v.Days, ExcludedDayView{Date: d.Date.Time().Format("Mon 2 Jan 2006"), Label: label})
	}
	for m := time.January; m <= time.December; m++ {
		v.Months = append(v.Months, newMonthGrid(year, m, labels))
	}
	v.Jobs = JobLinks(ws, jobs)
	return v
}

// NewCalendarForm is the form of the calendar row of ws (nil: a new one).
func NewCalendarForm(ws string, row *models.Calendar, csrf string) CalendarForm {
	f := CalendarForm{Workspace: ws, IsNew: row == nil, Action: NewCalendarPath(ws), CancelURL: CalendarsPath(ws),
		CSRFToken: csrf, Entries: "[\n]"}
	if row == nil {
		return f
	}
	f.Name, f.Action, f.CancelURL, f.Version = row.Name, CalendarEditPath(ws, row.Name), CalendarPath(ws, row.Name), row.Version
	if cal, err := caldef.Parse(row.Definition); err == nil {
		f.TimeZone, f.Description = cal.TimeZone, cal.Description
		f.Entries = entriesText(cal)
	}
	return f
}

// NewCalendarDeleteView is the deletion's confirmation of the calendar
// row of ws, which the jobs jobs exclude; reason (a refusal, nil for none)
// says why it was not deleted.
func NewCalendarDeleteView(ws string, row *models.Calendar, jobs []models.JobRef, csrf string, reason error) CalendarDeleteView {
	v := CalendarDeleteView{Workspace: ws, Name: row.Name, Action: CalendarDeletePath(ws, row.Name),
		CancelURL: CalendarPath(ws, row.Name), CSRFToken: csrf, Jobs: JobLinks(ws, jobs)}
	if reason != nil {
		v.Error = reason.Error()
	}
	if len(jobs) > 0 && v.Error == "" {
		v.Error = fmt.Sprintf("The calendar %s cannot be deleted: %d jobs exclude it. Remove it from their recurrence.calendars.exclude first.", row.Name, len(jobs))
	}
	return v
}

// zoneName is how pages show a calendar's zone.
func zoneName(cal *caldef.Calendar) string {
	if cal.TimeZone == "" {
		return "UTC"
	}
	return cal.TimeZone
}

// dayText is "Thu 24 Dec 2026 · Christmas Eve".
func dayText(d recurrence.ExcludedDay) string {
	s := d.Date.Time().Format("Mon 2 Jan 2006")
	if d.Label != "" {
		s += " · " + d.Label
	}
	return s
}

// addDate is d moved by years, months and days.
func addDate(d caldef.Date, years, months, days int) caldef.Date {
	return caldef.DateOf(d.Time().AddDate(years, months, days))
}

// newMonthGrid lays out a month from Monday, marking the days in labels.
func newMonthGrid(year int, month time.Month, labels map[caldef.Date]string) MonthGrid {
	g := MonthGrid{Title: month.String()}
	for _, week := range weeksOf(year, month) {
		row := make([]DayCell, 7)
		for i, day := range week {
			if day == 0 {
				continue
			}
			d := caldef.Date{Year: year, Month: month, Day: day}
			label, excluded := labels[d]
			if excluded && label == "" {
				label = "excluded"
			}
			row[i] = DayCell{Day: day, Date: d.String(), Excluded: excluded, Label: label}
		}
		g.Weeks = append(g.Weeks, row)
	}
	return g
}

// weeksOf lists the weeks of a month from Monday: day numbers, 0 where a
// week reaches into another month.
func weeksOf(year int, month time.Month) [][7]int {
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	n := first.AddDate(0, 1, -1).Day()
	col := (int(first.Weekday()) + 6) % 7
	var out [][7]int
	var w [7]int
	for day := 1; day <= n; day++ {
		w[col] = day
		col++
		if col == 7 || day == n {
			out = append(out, w)
			w, col = [7]int{}, 0
		}
	}
	return out
}

// entriesText is the entries of cal as an indented JSON array, one entry
// a line.
func entriesText(cal *caldef.Calendar) string {
	if len(cal.Entries) == 0 {
		return "[\n]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range cal.Entries {
		b.WriteString("  ")
		b.Write(e.Marshal())
		if i < len(cal.Entries)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]")
	return b.String()
}
