package catalog

import (
	"context"
	"errors"

	"sked/models/caldef"
	"sked/scheduler/calics"
)

// compileCalendar checks that every entry of cal can be expanded into
// days (a rule that never occurs, for example).
func compileCalendar(name string, cal *caldef.Calendar) error {
	return nil
}

// afterCalendarChange re-plans the enabled jobs that exclude the calendar
// name of workspaceID, after it changed.
func (c *Catalog) afterCalendarChange(ctx context.Context, workspaceID, name string) error {
	return nil
}

// expandEntry lists the days of one rule entry of the calendar name.
func expandEntry(name string, cal *caldef.Calendar) calics.Expander {
	return func(e caldef.Entry, from, to caldef.Date) ([]caldef.Date, error) {
		return nil, errors.New("rule entries cannot be expanded yet")
	}
}
