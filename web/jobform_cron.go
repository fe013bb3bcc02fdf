package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models/jobdef"
)

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
