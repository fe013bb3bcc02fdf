package catalog

import (
	"context"
	"fmt"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// afterCalendarChange re-plans the enabled jobs of workspaceID that exclude
// the calendar name, after it changed: each planned job's next run becomes
// the first occurrence after now under the new calendar (its schedule base
// and counters stay), and the engines are woken. A job already due runs as
// planned, and a job the engine is changing at the same moment is left to
// the engine, which plans its following runs with the new calendar anyway.
func (c *Catalog) afterCalendarChange(ctx context.Context, workspaceID, name string) error {
	jobs, err := c.store.EnabledJobsUsingCalendar(ctx, workspaceID, name)
	if err != nil || len(jobs) == 0 {
		return err
	}
	cals, err := c.WorkspaceCalendars(ctx, workspaceID)
	if err != nil {
		return err
	}
	now := c.now()
	for _, j := range jobs {
		job, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
		if err != nil || j.ScheduleBase == nil || j.NextRunAt == nil || !j.NextRunAt.After(now) {
			continue // due already: the engine runs it as planned
		}
		rule, err := recurrence.CompileWith(job, *j.ScheduleBase, recurrence.Options{Calendars: cals})
		if err != nil {
			continue // the engine reports jobs it cannot plan
		}
		var next *time.Time
		if t, ok := firstDueAfter(rule, recurrence.SpreadOf(job, j.ID), now); ok {
			next = &t
		}
		if next != nil && next.Equal(*j.NextRunAt) {
			continue
		}
		if _, err := c.store.ReplanJob(ctx, j.ID, *j.NextRunAt, next); err != nil {
			return fmt.Errorf("catalog: re-plan job %d after calendar %q changed: %w", j.ID, name, err)
		}
	}
	return nil
}

// firstDueAfter returns when the first occurrence of rule due after now
// is due, with the spread sp applied, and false when there is none.
func firstDueAfter(rule *recurrence.Rule, sp recurrence.Spread, now time.Time) (time.Time, bool) {
	t, ok := rule.Next(now.Add(-sp.Window))
	for ok && !sp.Due(t).After(now) {
		t, ok = rule.Next(t)
	}
	if !ok {
		return time.Time{}, false
	}
	return sp.Due(t), true
}
