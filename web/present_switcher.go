package web

import (
	"strings"

	"sked/models"
)

// NewWorkspaceSwitcher is the switcher of a user with memberships (by id),
// current the workspace the page is about ("" for all; matched
// case-insensitively, one the user is not a member of counts as all),
// whose choices lead to target. No memberships: nil (not shown).
func NewWorkspaceSwitcher(memberships []models.WorkspaceMembership, current string, target SwitchTarget) *WorkspaceSwitcher {
	if len(memberships) == 0 {
		return nil
	}
	sw := &WorkspaceSwitcher{Label: AllWorkspacesLabel}
	for _, m := range memberships {
		if current != "" && strings.EqualFold(m.ID, current) {
			sw.Current, sw.Label, sw.Role = m.ID, displayName(m), m.Role.Title()
		}
	}
	sw.Choices = append(sw.Choices, SwitcherChoice{Label: AllWorkspacesLabel, URL: switchURL(target, ""), Current: sw.Current == ""})
	for _, m := range memberships {
		sw.Choices = append(sw.Choices, SwitcherChoice{ID: m.ID, Label: displayName(m), Role: m.Role.Title(),
			URL: switchURL(target, m.ID), Current: m.ID == sw.Current})
	}
	home := sw.Current
	if home == "" {
		home = homeWorkspace(memberships)
	}
	sw.DashboardURL, sw.AllJobsURL = DashboardOf(sw.Current), AllJobsOf(sw.Current)
	sw.CalendarsURL, sw.MonthURL = switchURL(SwitchToCalendars, sw.Current), MonthPath(home)
	sw.RunningURL, sw.ChannelsURL = RunningPath(home), ChannelsPath(home)
	sw.AuditURL, sw.TargetsURL = AuditPath(home, nil), TargetsPath(home)
	sw.MonitorsURL = MonitorsPath(home)
	return sw
}

// InWorkspace is the dashboard d of workspace ws ("" for all the user's
// workspaces): its "New collection" creates the collection there.
func (d Dashboard) InWorkspace(ws string) Dashboard {
	d.NewCollectionURL = NewCollectionOf(ws)
	return d
}

// displayName is a workspace's display name, its id when it has none.
func displayName(m models.WorkspaceMembership) string {
	if strings.TrimSpace(m.DisplayName) == "" {
		return m.ID
	}
	return m.DisplayName
}

// homeWorkspace is the workspace whose month view the navigation links
// while all workspaces are chosen (a month view is of one workspace): the
// default workspace when the user is a member of it, else the first by
// id.
func homeWorkspace(memberships []models.WorkspaceMembership) string {
	for _, m := range memberships {
		if m.ID == models.DefaultWorkspaceID {
			return m.ID
		}
	}
	return memberships[0].ID
}

// switchURL is where choosing workspace ws ("" for all) leads from a page
// of kind target.
func switchURL(target SwitchTarget, ws string) string {
	switch {
	case target == SwitchToAllJobs:
		return AllJobsOf(ws)
	case target == SwitchToCalendars && ws != "":
		return CalendarsPath(ws)
	case target == SwitchToCalendars:
		return AllCalendarsPath
	case target == SwitchToMonth && ws != "":
		return MonthPath(ws)
	case target == SwitchToMembers && ws != "":
		return MembersPath(ws)
	case target == SwitchToMembers:
		return WorkspacesPath
	case target == SwitchToRunning && ws != "":
		return RunningPath(ws)
	case target == SwitchToChannels && ws != "":
		return ChannelsPath(ws)
	case target == SwitchToAudit && ws != "":
		return AuditPath(ws, nil)
	case target == SwitchToNewCollection:
		return NewCollectionOf(ws)
	}
	return DashboardOf(ws)
}
