package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// calendarCache keeps compiled calendars by id and version, so that a
// calendar is expanded once per change, not once per use. Safe for
// concurrent use; it holds at most one version of each calendar.
type calendarCache struct {
	mu sync.Mutex
	m  map[int64]compiledCalendar
}

// compiledCalendar is one calendar compiled at one version.
type compiledCalendar struct {
	version int64
	cal     *recurrence.Calendar
}

// WorkspaceCalendars returns the compiled calendars of workspaceID, keyed
// by lower-case name: what recurrence.CompileWith needs for the workspace's
// jobs. It reads the calendars' versions on every call and compiles only
// those that changed.
func (c *Catalog) WorkspaceCalendars(ctx context.Context, workspaceID string) (recurrence.Calendars, error) {
	vs, err := c.store.CalendarVersionsOf(ctx, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("catalog: workspace calendars: %w", err)
	}
	cals, _, err := c.compiledCalendars(ctx, vs)
	return cals, err
}

// CollectionCalendars returns the compiled calendars of the workspace that
// holds the job collection collectionID, and a stamp that changes whenever
// one of them does (the engine keys its compiled rules by it).
func (c *Catalog) CollectionCalendars(ctx context.Context, collectionID int64) (recurrence.Calendars, string, error) {
	vs, err := c.store.CalendarVersionsForCollection(ctx, collectionID)
	if err != nil {
		return nil, "", fmt.Errorf("catalog: collection calendars: %w", err)
	}
	return c.compiledCalendars(ctx, vs)
}

// CalendarsFor returns the workspace's calendars when job excludes some,
// and nil (no query) when it excludes none.
func (c *Catalog) CalendarsFor(ctx context.Context, workspaceID string, job *jobdef.Job) (recurrence.Calendars, error) {
	if !job.ExcludesCalendars() {
		return nil, nil
	}
	return c.WorkspaceCalendars(ctx, workspaceID)
}

// compiledCalendars compiles the calendars vs names, from the cache where
// their version is current.
func (c *Catalog) compiledCalendars(ctx context.Context, vs []models.CalendarVersion) (recurrence.Calendars, string, error) {
	out := make(recurrence.Calendars, len(vs))
	var stamp strings.Builder
	var missing []int64
	c.cals.mu.Lock()
	for _, v := range vs {
		stamp.WriteString(strconv.FormatInt(v.ID, 10) + "." + strconv.FormatInt(v.Version, 10) + ";")
		if cc, ok := c.cals.m[v.ID]; ok && cc.version == v.Version {
			out[strings.ToLower(v.Name)] = cc.cal
		} else {
			missing = append(missing, v.ID)
		}
	}
	c.cals.mu.Unlock()
	if len(missing) == 0 {
		return out, stamp.String(), nil
	}
	rows, err := c.store.CalendarsByID(ctx, missing)
	if err != nil {
		return nil, "", fmt.Errorf("catalog: calendars: %w", err)
	}
	for _, row := range rows {
		def, err := caldef.Parse(row.Definition)
		if err != nil {
			return nil, "", fmt.Errorf("catalog: stored calendar %q: %w", row.Name, err)
		}
		cal, err := recurrence.CompileCalendar(row.Name, def)
		if err != nil {
			return nil, "", fmt.Errorf("catalog: stored calendar %q: %w", row.Name, err)
		}
		c.cals.mu.Lock()
		c.cals.m[row.ID] = compiledCalendar{version: row.Version, cal: cal}
		c.cals.mu.Unlock()
		out[strings.ToLower(row.Name)] = cal
	}
	return out, stamp.String(), nil
}

// forget drops every compiled calendar.
func (cc *calendarCache) forget() {
	cc.mu.Lock()
	clear(cc.m)
	cc.mu.Unlock()
}
