package web

import "sked/models"

// NavLink is one link of the header's navigation (SPEC §9).
type NavLink struct {
	// ID is the link's element id ("nav-all-jobs"); Label what it reads;
	// URL where it leads.
	ID, Label, URL string
	// Current marks the page being shown (aria-current="page").
	Current bool
}

// NavPrimary is the navigation's links that show in the header on wide
// screens (and first in the menu on narrow ones): the pages of the jobs
// and their runs.
func (p Page) NavPrimary() []NavLink {
	return p.navLinks([]NavLink{
		{ID: "nav-all-jobs", Label: "All jobs", URL: p.NavAllJobs()},
		{ID: "nav-running", Label: "Running now", URL: p.NavRunning()},
		{ID: "nav-calendars", Label: "Calendars", URL: p.NavCalendars()},
		{ID: "nav-month", Label: "Month view", URL: p.NavMonth()},
		{ID: "nav-channels", Label: "Channels", URL: p.NavChannels()},
	})
}

// NavMore is the rest of the navigation, in the header's "More" menu:
// import and export, the audit log, workspaces, API tokens and, for
// administrators, the users.
func (p Page) NavMore() []NavLink {
	links := []NavLink{
		{ID: "nav-monitors", Label: "Monitors", URL: p.NavMonitors()},
		{ID: "nav-import", Label: "Import/export", URL: ImportPath},
		{ID: "nav-audit", Label: "Audit log", URL: p.NavAudit()},
		{ID: "nav-targets", Label: "Targets", URL: p.NavTargets()},
		{ID: "nav-workspaces", Label: "Workspaces", URL: WorkspacesPath},
		{ID: "nav-tokens", Label: "API tokens", URL: TokensPath},
	}
	if p.User != nil && p.User.IsAdmin {
		links = append(links, NavLink{ID: "nav-users", Label: "Users", URL: UsersPath})
	}
	return p.navLinks(links)
}

// NavMoreCurrent reports whether the page shown is one of NavMore's (the
// menu's summary is marked then).
func (p Page) NavMoreCurrent() bool {
	for _, l := range p.NavMore() {
		if l.Current {
			return true
		}
	}
	return false
}

// NavAudit is the navigation's audit log link.
func (p Page) NavAudit() string {
	if p.Switcher != nil && p.Switcher.AuditURL != "" {
		return p.Switcher.AuditURL
	}
	return AuditPath(models.DefaultWorkspaceID, nil)
}

// NavTargets is the navigation's Targets link (target limits).
func (p Page) NavTargets() string {
	if p.Switcher != nil && p.Switcher.TargetsURL != "" {
		return p.Switcher.TargetsURL
	}
	return TargetsPath(models.DefaultWorkspaceID)
}

// NavMonitors is the navigation's Monitors link.
func (p Page) NavMonitors() string {
	if p.Switcher != nil && p.Switcher.MonitorsURL != "" {
		return p.Switcher.MonitorsURL
	}
	return MonitorsPath(models.DefaultWorkspaceID)
}

// NavAccountCurrent reports whether the page shown is the user's account.
func (p Page) NavAccountCurrent() bool { return p.Title == navTitles["nav-account"] }

// navTitles is the page title of each navigation link's page: the link
// is current when the page has it.
var navTitles = map[string]string{
	"nav-all-jobs": "All jobs", "nav-running": "Running now", "nav-calendars": "Calendars", "nav-month": "Month view",
	"nav-channels": "Channels", "nav-import": "Import and export", "nav-audit": "Audit log", "nav-targets": "Targets", "nav-workspaces": "Workspaces",
	"nav-tokens": "API tokens", "nav-monitors": "Monitors", "nav-users": "Users", "nav-account": "Your account",
}

// navLinks marks the current link of links.
func (p Page) navLinks(links []NavLink) []NavLink {
	for i := range links {
		links[i].Current = navTitles[links[i].ID] == p.Title
	}
	return links
}
