package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// The presenters of the job form: a parsed job, or a pasted cron line,
// back into the form's fields (the form's parsing into a job is in
// handlers).

// JobFormFrom fills the form's fields from a parsed job. It reports, as
// unsupported, what the form cannot show (then only the JSON tab edits the
// job).
func JobFormFrom(job *jobdef.Job) (jf JobForm, unsupported string) {
	a := job.Action
	jf.Mode = "form"
	jf.ActionType = string(a.Kind)
	if a.Request == nil {
		return jf, fmt.Sprintf("an action of type %q", a.Type)
	}
	jf.Method, jf.URI, jf.Body = a.Request.Method, a.Request.URI, a.Request.Body
	var lines []string
	for _, h := range a.Request.Headers {
		lines = append(lines, h.Name+": "+h.Value)
	}
	jf.Headers = strings.Join(lines, "\n")
	if au := a.Request.Authentication; au != nil {
		switch au.Kind {
		case jobdef.AuthBasic:
			jf.AuthType, jf.Username, jf.Password = "basic", au.Username, au.Password
		case jobdef.AuthClientCertificate:
			jf.AuthType, jf.Pfx, jf.Password = "clientCertificate", au.Pfx, au.Password
		case jobdef.AuthActiveDirectory:
			jf.AuthType, jf.Tenant, jf.Audience, jf.ClientID, jf.Secret = "activeDirectoryOAuth", au.Tenant, au.Audience, au.ClientID, au.Secret
		}
	}
	if a.HasRetryPolicy {
		jf.RetryType = string(a.RetryPolicy.Type)
		if t := a.RetryPolicy.Type; t == jobdef.RetryFixed || t == jobdef.RetryExponential {
			jf.RetryInterval = a.RetryPolicy.IntervalText
			if jf.RetryInterval == "" {
				jf.RetryInterval = jobdef.FormatISODuration(a.RetryPolicy.Interval)
			}
			jf.RetryCount = strconv.Itoa(a.RetryPolicy.Count)
		}
		if a.RetryPolicy.Type == jobdef.RetryExponential {
			jf.MaxRetryInterval = a.RetryPolicy.MaxIntervalText
		}
	}
	jf.Timeout = a.TimeoutText
	if ea := a.ErrorAction; ea != nil {
		if ea.Request == nil || ea.Request.Authentication != nil || len(ea.Request.Headers) > 0 || ea.HasRetryPolicy {
			return jf, "an error action with more than a method, a URL and a body"
		}
		jf.ErrorAction, jf.ErrorMethod, jf.ErrorURI, jf.ErrorBody = true, ea.Request.Method, ea.Request.URI, ea.Request.Body
	}
	jf.State = string(job.State)
	jf.Misfire, jf.Concurrency = string(job.MisfirePolicy), string(job.Concurrency)
	loc := job.Location()
	wall := func(d jobdef.DateTime) string {
		if d.DateOnly {
			return d.Time.Format("2006-01-02") + "T00:00"
		}
		t := d.Time
		if d.HasOffset {
			t = t.In(loc)
		}
		return t.Format("2006-01-02T15:04")
	}
	if job.StartTime != nil {
		jf.StartTime = wall(*job.StartTime)
	}
	if r := job.Recurrence; r != nil {
		jf.ExcludeCalendars, jf.OnExcluded = calendarsOfJob(r)
		jf.TimeZone = r.TimeZone
		jf.Frequency = string(r.Frequency)
		jf.Interval = strconv.Itoa(r.Interval)
		jf.End = "never"
		if r.Count > 0 {
			jf.End, jf.Count = "count", strconv.Itoa(r.Count)
			if r.EndTime != nil {
				return jf, "both a count and an end time"
			}
		} else if r.EndTime != nil {
			jf.End, jf.EndTime = "until", wall(*r.EndTime)
		}
		if s := r.Schedule; s != nil {
			jf.Minutes, jf.Hours, jf.MonthDays, jf.Months = sorted(s.Minutes), sorted(s.Hours), sorted(s.MonthDays), sorted(s.Months)
			for _, d := range s.WeekDays {
				jf.WeekDays = append(jf.WeekDays, strings.ToLower(d.String()))
			}
			for _, o := range s.MonthlyOccurrences {
				jf.Occurrences = append(jf.Occurrences, fmt.Sprintf("%d:%s", o.Occurrence, strings.ToLower(o.Day.String())))
			}
			for _, d := range s.MonthDays {
				if d < -1 {
					return jf, "month days counted from the end other than the last day"
				}
			}
		}
	}
	return jf, ""
}

// sorted is a sorted copy of v.
func sorted(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// calendarsOfJob is the form's calendars of a job's recurrence.
func calendarsOfJob(r *jobdef.Recurrence) ([]string, string) {
	if r == nil || r.Calendars == nil {
		return nil, string(jobdef.ExcludedSkip)
	}
	return slices.Clone(r.Calendars.Exclude), string(r.Calendars.OnExcluded)
}

// FillFormFromCron sets the builder's schedule fields to cron's recurrence.
// Every minute (frequency minute with all sixty minutes) is shown as
// frequency hour with every minute checked, which the builder keeps exact
// (it leaves the minutes of frequency minute out). An empty start time
// becomes today 00:00 in the job's zone: a start in the past changes none
// of the line's runs, and keeps the job from also running when it is
// saved (as a schedule without a start time does, SPEC §2), which cron
// never does.
func FillFormFromCron(f *JobForm, cron *jobdef.Cron, now time.Time) error {
	s := cron.Schedule
	for _, d := range s.MonthDays {
		if d < -1 {
			return fmt.Errorf("L-%d (counting back from the last day) can only be written in the JSON tab, as monthDays %d", -d-1, d)
		}
	}
	f.Frequency, f.Interval = string(cron.Frequency), "1"
	if cron.Frequency == jobdef.Minute {
		f.Frequency = string(jobdef.Hour)
	}
	f.Minutes, f.Hours, f.MonthDays, f.Months = sorted(s.Minutes), sorted(s.Hours), sorted(s.MonthDays), sorted(s.Months)
	f.WeekDays, f.Occurrences = nil, nil
	for _, d := range s.WeekDays {
		f.WeekDays = append(f.WeekDays, strings.ToLower(d.String()))
	}
	for _, o := range s.MonthlyOccurrences {
		f.Occurrences = append(f.Occurrences, strconv.Itoa(o.Occurrence)+":"+strings.ToLower(o.Day.String()))
	}
	if cron.TimeZone != "" {
		f.TimeZone = cron.TimeZone
	}
	if f.StartTime == "" {
		loc, err := jobdef.LoadZone(f.TimeZone)
		if err != nil {
			loc = time.UTC // the time zone field says what is wrong
		}
		f.StartTime = now.In(loc).Format("2006-01-02") + "T00:00"
	}
	return nil
}

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
