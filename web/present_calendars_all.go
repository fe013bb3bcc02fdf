package web

import "sked/models"

// NewWorkspaceCalendars is the section of workspace m, holding rows (its
// calendars, NewCalendarRow), in the calendars of all the user's
// workspaces.
func NewWorkspaceCalendars(m models.WorkspaceMembership, rows []CalendarRow) WorkspaceCalendars {
	return WorkspaceCalendars{ID: m.ID, Label: displayName(m), URL: CalendarsPath(m.ID), Rows: rows}
}
