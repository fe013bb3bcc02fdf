package jobdef

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// OnExcluded says what happens to an occurrence that falls on a day of an
// excluded calendar (SPEC §13.6).
type OnExcluded string

// The values of recurrence.calendars.onExcluded.
const (
	// ExcludedSkip drops the occurrence (the default).
	ExcludedSkip OnExcluded = "skip"
	// ExcludedNextDay moves it to the nearest later day that is not
	// excluded, at the same time of day, unless that reaches the next
	// regular occurrence.
	ExcludedNextDay OnExcluded = "nextDay"
	// ExcludedPreviousDay moves it to the nearest earlier day that is not
	// excluded, unless that reaches back to the previous regular occurrence.
	ExcludedPreviousDay OnExcluded = "previousDay"
)

// maxCalendarsPerJob bounds recurrence.calendars.exclude.
const maxCalendarsPerJob = 10

// calendarNamePattern is the shape of a calendar name: it appears in URLs.
var calendarNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidCalendarName reports whether name can name a calendar: 1–64 letters,
// digits, '-', '_' or '.', starting with a letter or digit.
func ValidCalendarName(name string) bool { return calendarNamePattern.MatchString(name) }

// Calendars is recurrence.calendars (extension, SPEC §13.6): the workspace
// calendars whose days the job does not run on, and what happens to an
// occurrence on such a day. The names are checked against the workspace's
// calendars when the job is saved, not here.
type Calendars struct {
	// Exclude lists 1 to 10 calendar names, without duplicates (compared
	// without regard to case), in the order given.
	Exclude []string
	// OnExcluded is skip (the default), nextDay or previousDay.
	OnExcluded OnExcluded
}

// parseCalendars reads recurrence.calendars.
func parseCalendars(raw json.RawMessage, ps *problems) *Calendars {
	const path = "recurrence.calendars"
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	c := &Calendars{OnExcluded: ExcludedSkip}
	raw, present := o.get("exclude")
	items, isArray := decodeArray(raw)
	switch {
	case !present:
		ps.add(path+".exclude", "is required: the names of the calendars whose days the job skips")
	case !isArray:
		ps.add(path+".exclude", "must be an array of calendar names, not "+article(kindOf(raw)))
	case len(items) == 0:
		ps.add(path+".exclude", "must name at least one calendar")
	case len(items) > maxCalendarsPerJob:
		ps.add(path+".exclude", fmt.Sprintf("names %d calendars, over the maximum of %d", len(items), maxCalendarsPerJob))
	default:
		seen := map[string]bool{}
		for i, item := range items {
			p := fmt.Sprintf("%s.exclude[%d]", path, i)
			name, ok := decodeString(item)
			switch {
			case !ok:
				ps.add(p, "must be a calendar name, not "+article(kindOf(item)))
			case !ValidCalendarName(name):
				ps.add(p, fmt.Sprintf("%q is not a calendar name (1–64 letters, digits, '-', '_' or '.')", name))
			case seen[strings.ToLower(name)]:
				ps.add(p, fmt.Sprintf("%q is listed twice", name))
			default:
				seen[strings.ToLower(name)] = true
				c.Exclude = append(c.Exclude, name)
			}
		}
	}
	if s, ok := stringField(o, "onExcluded", path+".onExcluded", ps); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "skip":
			c.OnExcluded = ExcludedSkip
		case "nextday":
			c.OnExcluded = ExcludedNextDay
		case "previousday":
			c.OnExcluded = ExcludedPreviousDay
		default:
			ps.add(path+".onExcluded", fmt.Sprintf("%q is not one of skip, nextDay, previousDay", s))
		}
	}
	return c
}
