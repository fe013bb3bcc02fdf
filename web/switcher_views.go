package web

// WorkspaceSwitcher is the header's choice of workspace (SPEC §13.4): the
// workspaces the user is a member of, with the role, and "All my
// workspaces"; each choice is a plain link to the same kind of page for
// that choice. It also gives the navigation's links for the chosen
// workspace. A nil switcher is not shown (signed out, no memberships).
type WorkspaceSwitcher struct {
	// Current is the chosen workspace's id, "" for all of them.
	Current string
	// Label is what the closed switcher shows: the chosen workspace's
	// display name, or AllWorkspacesLabel.
	Label string
	// Role is the user's role in the chosen workspace ("Editor"), "" for
	// all of them.
	Role string
	// Choices are "All my workspaces" first, then each workspace by id.
	Choices []SwitcherChoice
	// The navigation's links for the chosen workspace: the dashboard,
	// "All jobs", the calendars and the month view.
	DashboardURL, AllJobsURL, CalendarsURL, MonthURL string
	// RunningURL and ChannelsURL are the navigation's running-now and
	// Channels links: of the chosen workspace, or of the home workspace
	// (see MonthURL) while all are chosen.
	RunningURL, ChannelsURL string
	// AuditURL is the navigation's audit log link, of the same workspace
	// as ChannelsURL.
	AuditURL string
	// TargetsURL is the navigation's Targets link, of the same workspace
	// as ChannelsURL.
	TargetsURL string
	// MonitorsURL is the navigation's Monitors link, of the same
	// workspace as ChannelsURL.
	MonitorsURL string
}

// SwitcherChoice is one choice of the workspace switcher.
type SwitcherChoice struct {
	// ID is the workspace's id, "" for all of them.
	ID string
	// Label is the display name (or AllWorkspacesLabel); Role the user's
	// role there ("Owner"), "" for all.
	Label, Role string
	// URL is where choosing it leads.
	URL string
	// Current marks the chosen one.
	Current bool
}

// AllWorkspacesLabel is the switcher's choice of every workspace of the
// user.
const AllWorkspacesLabel = "All my workspaces"

// SwitchTarget is the kind of page the switcher's choices lead to: the
// same page for the chosen workspace where the page is per workspace,
// else the dashboard.
type SwitchTarget int

// The kinds of page the switcher leads to.
const (
	// SwitchToDashboard: the dashboard (from the dashboard, collection and
	// job pages, and every page that is not per workspace).
	SwitchToDashboard SwitchTarget = iota
	// SwitchToAllJobs: the "All jobs" page.
	SwitchToAllJobs
	// SwitchToCalendars: the calendars of the workspace.
	SwitchToCalendars
	// SwitchToMonth: the month view of the workspace.
	SwitchToMonth
	// SwitchToMembers: the members of the workspace (all: the workspaces
	// page).
	SwitchToMembers
	// SwitchToNewCollection: the form that creates a collection, in the
	// workspace.
	SwitchToNewCollection
	// SwitchToRunning: the running-now view of the workspace.
	SwitchToRunning
	// SwitchToChannels: the Channels page of the workspace.
	SwitchToChannels
	// SwitchToAudit: the audit log of the workspace.
	SwitchToAudit
)
