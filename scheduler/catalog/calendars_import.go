package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/calics"
)

// MaxCalendarImportBytes bounds an imported iCalendar file.
const MaxCalendarImportBytes = 1 << 20

// CalendarImport is an iCalendar file to import into a calendar.
type CalendarImport struct {
	WorkspaceID string
	// Name is the calendar; it is created when missing.
	Name string
	// ICS is the file.
	ICS []byte
	// DryRun reports what would be added and changes nothing.
	DryRun bool
	// TimeZone is the zone of a calendar the import creates; "" means the
	// file's X-WR-TIMEZONE, else UTC. An existing calendar keeps its zone.
	TimeZone string
}

// CalendarImportReport says what an import added (or would add).
type CalendarImportReport struct {
	Calendar string `json:"calendar"`
	DryRun   bool   `json:"dryRun"`
	// Created says that the calendar did not exist: the import creates it.
	Created  bool   `json:"created"`
	TimeZone string `json:"timeZone"`
	// Added are the new entries; Existing the events whose entry the
	// calendar already has (or an earlier event of the file gave).
	Added    []ImportedEntry `json:"added"`
	Existing []ImportedEntry `json:"existing"`
	// NotImported are the events that became no entry, with the reason.
	NotImported []NotImported `json:"notImported"`
	// Entries is how many entries the calendar has after the import.
	Entries int `json:"entries"`
}

// ImportedEntry is an event of the file and the entry it became.
type ImportedEntry struct {
	Event string          `json:"event"`
	Entry json.RawMessage `json:"entry"`
	Note  string          `json:"note,omitempty"`
}

// NotImported is an event that became no entry.
type NotImported struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
}

// ImportCalendar adds the events of an iCalendar file to a calendar (see
// calics for how events become entries), creating the calendar when it is
// missing, unless in.DryRun. Entries the calendar already has (compared
// without their labels) are not added twice. actor makes the change (its
// UserID is recorded as the calendar's editor). Errors: a
// *problem.List naming "file", "timeZone" or "name" (400).
func (c *Catalog) ImportCalendar(ctx context.Context, actor Actor, in CalendarImport) (*CalendarImportReport, error) {
	if err := c.allow(ctx, actor, Change{Op: OpImportCalendar, WorkspaceID: in.WorkspaceID, Calendar: in.Name}); err != nil {
		return nil, err
	}
	if err := checkCalendarName(in.Name); err != nil {
		return nil, err
	}
	if len(in.ICS) > MaxCalendarImportBytes {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "file", Message: "is over the maximum of 1 MB"}}}
	}
	file, err := calics.Read(in.ICS)
	if err != nil {
		return nil, err
	}
	cal, version, err := c.importTarget(ctx, in, file)
	created := version == 0
	if err != nil {
		return nil, err
	}
	rep := &CalendarImportReport{Calendar: in.Name, DryRun: in.DryRun, Created: created, TimeZone: cal.TimeZone,
		Added: []ImportedEntry{}, Existing: []ImportedEntry{}, NotImported: []NotImported{}}
	if rep.TimeZone == "" {
		rep.TimeZone = "UTC"
	}
	have := map[string]string{}
	for _, e := range cal.Entries {
		have[entryKey(e)] = "already in the calendar"
	}
	items, skipped := file.Convert(cal.Location)
	for _, it := range items {
		row := ImportedEntry{Event: it.Event, Entry: it.Entry.Marshal()}
		key := entryKey(it.Entry)
		if note, ok := have[key]; ok {
			row.Note = note
			rep.Existing = append(rep.Existing, row)
			continue
		}
		have[key] = "an earlier event of the file gives it"
		cal.Entries = append(cal.Entries, it.Entry)
		rep.Added = append(rep.Added, row)
	}
	for _, s := range skipped {
		rep.NotImported = append(rep.NotImported, NotImported{Event: s.Event, Reason: "not imported: " + s.Reason})
	}
	rep.Entries = len(cal.Entries)
	if len(cal.Entries) > caldef.MaxEntries {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "file", Message: fmt.Sprintf(
			"would give the calendar %d entries, over the maximum of %d", len(cal.Entries), caldef.MaxEntries)}}}
	}
	if in.DryRun || (len(rep.Added) == 0 && !created) {
		return rep, nil
	}
	rec := &record{Change: Change{Op: OpImportCalendar, WorkspaceID: in.WorkspaceID, Calendar: in.Name,
		Detail: fmt.Sprintf("%d entries added", len(rep.Added))}}
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		_, _, err := tc.putCalendar(ctx, in.WorkspaceID, in.Name, cal.Marshal(), actor.UserID, &version, rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// importTarget is the calendar an import adds to, with its version: the
// stored one, or a new one (version 0) in the zone asked for (or the
// file's).
func (c *Catalog) importTarget(ctx context.Context, in CalendarImport, file *calics.File) (*caldef.Calendar, int64, error) {
	row, err := c.store.CalendarByName(ctx, in.WorkspaceID, in.Name)
	switch {
	case err == nil:
		cal, err := caldef.Parse(row.Definition)
		if err != nil {
			return nil, 0, fmt.Errorf("catalog: import calendar: stored calendar: %w", err)
		}
		return cal, row.Version, nil
	case !errors.Is(err, models.ErrNotFound):
		return nil, 0, fmt.Errorf("catalog: import calendar: %w", err)
	}
	cal := &caldef.Calendar{TimeZone: in.TimeZone, Location: time.UTC, Description: file.Name}
	if cal.TimeZone == "" {
		cal.TimeZone = file.TimeZone
	}
	if cal.TimeZone != "" {
		loc, err := jobdef.LoadZone(cal.TimeZone)
		if err != nil {
			return nil, 0, &problem.List{Problems: []problem.Problem{{Path: "timeZone",
				Message: fmt.Sprintf("%q is not a known IANA or Windows time zone", cal.TimeZone)}}}
		}
		cal.Location = loc
	}
	if len([]rune(cal.Description)) > caldef.MaxDescription {
		cal.Description = string([]rune(cal.Description)[:caldef.MaxDescription])
	}
	return cal, 0, nil
}

// entryKey identifies an entry's days, whatever its label.
func entryKey(e caldef.Entry) string {
	e.Label = ""
	return string(e.Marshal())
}
