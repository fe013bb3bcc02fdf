package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/calics"
)

// reservedCalendarNames are path segments of the calendar pages, which
// therefore cannot name a calendar.
var reservedCalendarNames = map[string]bool{"new": true, "import": true}

// checkCalendarName refuses a name that cannot name a calendar (a
// *problem.List on "name").
func checkCalendarName(name string) error {
	switch {
	case !jobdef.ValidCalendarName(name):
		return &problem.List{Problems: []problem.Problem{{Path: "name",
			Message: fmt.Sprintf("%q is not a calendar name (1–64 letters, digits, '-', '_' or '.', starting with a letter or digit)", name)}}}
	case reservedCalendarNames[strings.ToLower(name)]:
		return &problem.List{Problems: []problem.Problem{{Path: "name",
			Message: fmt.Sprintf("%q is reserved for the calendar pages (…/calendars/new, …/calendars/import): choose another name", name)}}}
	}
	return nil
}

// maxJobsNamed bounds the jobs a refused calendar deletion names.
const maxJobsNamed = 5

// ParseCalendar validates the calendar JSON body for the calendar name:
// the name's shape ("name"), the document (caldef.Parse, problems named
// by path such as "entries[3].to") and that every entry can be expanded
// into days. Errors are a *problem.List (400).
func ParseCalendar(name string, body []byte) (*caldef.Calendar, error) {
	if err := checkCalendarName(name); err != nil {
		return nil, err
	}
	cal, err := caldef.Parse(body)
	if err != nil {
		return nil, err
	}
	if err := compileCalendar(name, cal); err != nil {
		return nil, err
	}
	return cal, nil
}

// PutCalendar creates or replaces the calendar name of workspaceID with
// body (the calendar JSON), for actor (recording actor.UserID, 0: none,
// as its editor), and re-plans the jobs that exclude it. It reports
// whether the calendar was created. Errors: a *problem.List
// (400), models.ErrNotFound for an unknown workspace.
func (c *Catalog) PutCalendar(ctx context.Context, actor Actor, workspaceID, name string, body []byte) (*caldef.Calendar, bool, error) {
	return c.putCalendarChange(ctx, actor, workspaceID, name, body, nil)
}

// PutCalendarVersion is PutCalendar for a writer that read the calendar
// at version (0: it did not exist yet), such as the edit form or an
// import: when someone else changed it since, nothing is written and the
// error is a *models.ConflictError (409) saying so.
func (c *Catalog) PutCalendarVersion(ctx context.Context, actor Actor, workspaceID, name string, body []byte, version int64) (*caldef.Calendar, bool, error) {
	return c.putCalendarChange(ctx, actor, workspaceID, name, body, &version)
}

// putCalendarChange is putCalendar reporting the change.
func (c *Catalog) putCalendarChange(ctx context.Context, actor Actor, workspaceID, name string, body []byte, version *int64) (*caldef.Calendar, bool, error) {
	rec := &record{Change: Change{Op: OpPutCalendar, WorkspaceID: workspaceID, Calendar: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, false, err
	}
	var cal *caldef.Calendar
	var created bool
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		cal, created, err = tc.putCalendar(ctx, workspaceID, name, body, actor.UserID, version, rec)
		rec.Detail = createdDetail(created)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return cal, created, nil
}

// putCalendar validates and writes a calendar, at version when not nil,
// then re-plans the jobs that exclude it; it fills rec's Before and
// After.
func (c *Catalog) putCalendar(ctx context.Context, workspaceID, name string, body []byte, userID int64, version *int64, rec *record) (*caldef.Calendar, bool, error) {
	cal, err := ParseCalendar(name, body)
	if err != nil {
		return nil, false, err
	}
	if cur, err := c.store.CalendarByName(ctx, workspaceID, name); err == nil {
		rec.Before = cur.Definition
	}
	rec.After = cal.Marshal()
	var created bool
	if version == nil {
		created, err = c.store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: workspaceID, Name: name, Definition: cal.Marshal(), UserID: userID})
	} else {
		created, err = c.store.PutCalendarVersion(ctx, models.PutCalendarParams{WorkspaceID: workspaceID, Name: name, Definition: cal.Marshal(), UserID: userID}, *version)
		if errors.Is(err, models.ErrConflict) {
			return nil, false, &models.ConflictError{Message: fmt.Sprintf(
				"The calendar %s was changed by someone else in the meantime: nothing was saved. Reload it and apply your change again.", name)}
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("catalog: put calendar: %w", err)
	}
	return cal, created, c.afterCalendarChange(ctx, workspaceID, name)
}

// DeleteCalendar deletes the calendar name of workspaceID unless jobs
// exclude it: then it is a *models.ConflictError (409) naming up to five
// of them. An unknown calendar is models.ErrNotFound. actor makes the
// change.
func (c *Catalog) DeleteCalendar(ctx context.Context, actor Actor, workspaceID, name string) error {
	rec := &record{Change: Change{Op: OpDeleteCalendar, WorkspaceID: workspaceID, Calendar: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.CalendarByName(ctx, workspaceID, name)
		if err != nil {
			return fmt.Errorf("catalog: delete calendar: %w", err)
		}
		rec.Calendar, rec.Before = cur.Name, cur.Definition
		refs, err := tc.store.JobsUsingCalendar(ctx, workspaceID, cur.Name)
		if err != nil {
			return fmt.Errorf("catalog: delete calendar: %w", err)
		}
		if len(refs) > 0 {
			return &models.ConflictError{Message: InUseMessage(cur.Name, refs)}
		}
		monitors, err := tc.store.MonitorsUsingCalendar(ctx, workspaceID, cur.Name)
		if err != nil {
			return fmt.Errorf("catalog: delete calendar: %w", err)
		}
		if len(monitors) > 0 {
			return &models.ConflictError{Message: fmt.Sprintf("The calendar %s is excluded by the heartbeat monitors %s. Remove it from their schedule.calendars.exclude first.",
				cur.Name, firstNames(monitors, func(s string) string { return s }))}
		}
		if err := tc.store.DeleteCalendar(ctx, workspaceID, cur.Name); err != nil {
			return fmt.Errorf("catalog: delete calendar: %w", err)
		}
		return nil
	})
}

// InUseMessage says that the calendar name cannot be deleted because the
// jobs refs exclude it, naming up to five of them.
func InUseMessage(name string, refs []models.JobRef) string {
	jobs := "jobs"
	if len(refs) == 1 {
		jobs = "job"
	}
	return fmt.Sprintf("The calendar %s is used by %d %s: %s. Remove it from their recurrence.calendars.exclude first.",
		name, len(refs), jobs, firstNames(refs, models.JobRef.String))
}

// CalendarDocument is a stored calendar as the API answers it: the
// calendar JSON with its name, version and last change.
func CalendarDocument(row *models.Calendar) (json.RawMessage, error) {
	cal, err := caldef.Parse(row.Definition)
	if err != nil {
		return nil, fmt.Errorf("catalog: stored calendar %s: %w", row.Name, err)
	}
	body := cal.Marshal()
	head := fmt.Sprintf(`{"name":%s,"version":%d,"updatedAt":%q,`, quoteJSON(row.Name), row.Version,
		row.UpdatedAt.UTC().Format(time.RFC3339))
	return append([]byte(head), body[1:]...), nil
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// CalendarICS returns the stored calendar row as an iCalendar file (see
// calics.Export).
func (c *Catalog) CalendarICS(row *models.Calendar) ([]byte, error) {
	cal, err := caldef.Parse(row.Definition)
	if err != nil {
		return nil, fmt.Errorf("catalog: stored calendar %s: %w", row.Name, err)
	}
	out, err := calics.Export(row.Name, cal, c.now(), expandEntry(row.Name, cal))
	if err != nil {
		return nil, fmt.Errorf("catalog: export calendar %s: %w", row.Name, err)
	}
	return []byte(out), nil
}

// firstNames joins the names of up to maxJobsNamed of items ("a, b, c,
// d, e, and 3 more").
func firstNames[T any](items []T, name func(T) string) string {
	names := make([]string, 0, maxJobsNamed+1)
	for i, it := range items {
		if i == maxJobsNamed {
			names = append(names, fmt.Sprintf("and %d more", len(items)-maxJobsNamed))
			break
		}
		names = append(names, name(it))
	}
	return strings.Join(names, ", ")
}
