package web

import (
	"slices"
	"strings"
)

// calendarChoice is one calendar of the job form's "Skip days in
// calendars".
type calendarChoice struct {
	Name    string
	Checked bool
}

// calendarChoices are the workspace's calendars, checked when the job
// excludes them (names compare without regard to case), then the
// calendars the job names that the workspace lacks, checked (saving then
// says that they are missing).
func calendarChoices(f JobForm) []calendarChoice {
	var out []calendarChoice
	for _, name := range f.CalendarOptions {
		out = append(out, calendarChoice{Name: name, Checked: slices.ContainsFunc(f.ExcludeCalendars, func(c string) bool {
			return strings.EqualFold(c, name)
		})})
	}
	for _, name := range f.ExcludeCalendars {
		if !slices.ContainsFunc(f.CalendarOptions, func(o string) bool { return strings.EqualFold(o, name) }) {
			out = append(out, calendarChoice{Name: name, Checked: true})
		}
	}
	return out
}
