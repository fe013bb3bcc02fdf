package web

// AllCalendarsView is the calendars of all the user's workspaces (the
// workspace switcher's "All my workspaces"), one section per workspace.
type AllCalendarsView struct {
	Workspaces []WorkspaceCalendars
}

// WorkspaceCalendars is one workspace's section of AllCalendarsView.
type WorkspaceCalendars struct {
	// ID is the workspace's id; Label its display name.
	ID, Label string
	// URL is the workspace's calendars page.
	URL  string
	Rows []CalendarRow
}
