package catalog

import (
	"fmt"

	"sked/models/caldef"
	"sked/models/problem"
	"sked/scheduler/calics"
	"sked/scheduler/recurrence"
)

// compileCalendar checks that the entries of cal expand into days within
// the core's limits (recurrence.CompileCalendar); a failure is a
// *problem.List on "entries".
func compileCalendar(name string, cal *caldef.Calendar) error {
	if _, err := recurrence.CompileCalendar(name, cal); err != nil {
		if ve := problem.As(err); ve != nil {
			return ve
		}
		return &problem.List{Problems: []problem.Problem{{Path: "entries", Message: err.Error()}}}
	}
	return nil
}

// expandEntry lists the days of one rule entry of the calendar name: the
// entry alone, compiled in the calendar's zone.
func expandEntry(name string, cal *caldef.Calendar) calics.Expander {
	return func(e caldef.Entry, from, to caldef.Date) ([]caldef.Date, error) {
		one := &caldef.Calendar{TimeZone: cal.TimeZone, Location: cal.Location, Entries: []caldef.Entry{e}}
		rc, err := recurrence.CompileCalendar(name, one)
		if err != nil {
			return nil, fmt.Errorf("expand entry: %w", err)
		}
		days := rc.ExcludedDays(from, to)
		out := make([]caldef.Date, len(days))
		for i, d := range days {
			out[i] = d.Date
		}
		return out, nil
	}
}
