package web

import (
	"strconv"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// The presenters of the job form's live preview: its occurrences and
// its calendar strip.

// PreviewOccurrences are the occurrences of the form's preview, shown in
// loc with UTC alongside (none when loc is UTC).
func PreviewOccurrences(occ []time.Time, loc *time.Location) []PreviewOccurrence {
	var out []PreviewOccurrence
	for _, o := range occ {
		po := PreviewOccurrence{
			RFC3339: o.Format(time.RFC3339),
			Local:   o.In(loc).Format("Mon 2 Jan 2006 15:04 MST"),
		}
		if loc.String() != "UTC" {
			po.UTC = o.UTC().Format("2 Jan 15:04 UTC")
		}
		out = append(out, po)
	}
	return out
}

// StartNowNote labels the first previewed run of a job without a start
// time, which runs when it is saved.
const StartNowNote = "now — no start time set"

// PreviewOccurrencesOf is PreviewOccurrences for job previewed at now: the
// first run of a job without a start time, in the second of now, is
// labelled StartNowNote.
func PreviewOccurrencesOf(job *jobdef.Job, occ []time.Time, now time.Time) []PreviewOccurrence {
	out := PreviewOccurrences(occ, job.Location())
	if job.StartTime == nil && len(occ) > 0 && occ[0].Unix() == now.Unix() {
		out[0].Note = StartNowNote
	}
	return out
}

// NewCalendarDays counts the job's runs on each of the six weeks from the
// Monday of the current week, in the job's zone.
func NewCalendarDays(job *jobdef.Job, now time.Time, cals recurrence.Calendars) []CalendarDay {
	loc := job.Location()
	rule, err := recurrence.CompileWith(job, now, recurrence.Options{Calendars: cals})
	if err != nil {
		return nil
	}
	// Days are dates whose bounds are their local midnights by the rule
	// the jobs run by: time.Date would put a midnight skipped by daylight
	// saving at 23:00 of the day before (America/Santiago, 2024-09-08).
	local := now.In(loc)
	todayDate := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	today := recurrence.WallInstant(todayDate, loc)
	startDate := todayDate.AddDate(0, 0, -((int(todayDate.Weekday()) + 6) % 7))
	limit := -1
	if job.Recurrence != nil && job.Recurrence.Count > 0 {
		limit = job.Recurrence.Count
	}
	days := make([]CalendarDay, 42)
	// Occurrences are whole seconds: a job without a start time runs in
	// the second of now, which a later "after" would miss.
	t := time.Unix(now.Unix()-1, 0)
	for i := range days {
		day := recurrence.WallInstant(startDate.AddDate(0, 0, i), loc)
		next := recurrence.WallInstant(startDate.AddDate(0, 0, i+1), loc)
		d := CalendarDay{Date: day.Format("2006-01-02"), Label: strconv.Itoa(day.Day()), Month: day.Format("Mon 2 January"),
			Today: day.Equal(today)}
		if !day.Before(today) {
			for steps := 0; steps < 1500 && limit != 0; steps++ {
				o, ok := rule.Next(t)
				if !ok || !o.Before(next) {
					break
				}
				t = o
				d.Count++
				if limit > 0 {
					limit--
				}
			}
		}
		days[i] = d
	}
	return days
}
