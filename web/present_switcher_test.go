package web

import (
	"testing"

	"sked/models"
)

// TestNewWorkspaceSwitcher checks the switcher's label, choices and links
// for one workspace, several, all of them, a workspace named in another
// case, one the user is not a member of, and each kind of page.
func TestNewWorkspaceSwitcher(t *testing.T) {
	one := []models.WorkspaceMembership{{ID: "default", DisplayName: "Default", Role: models.RoleOwner}}
	several := []models.WorkspaceMembership{
		{ID: "default", DisplayName: "Default", Role: models.RoleOwner},
		{ID: "team-a", DisplayName: "Team A", Role: models.RoleReader},
		{ID: "team b", DisplayName: "", Role: models.RoleEditor},
	}
	noDefault := []models.WorkspaceMembership{
		{ID: "ops", DisplayName: "Ops", Role: models.RoleOperator},
		{ID: "team-a", DisplayName: "Team A", Role: models.RoleReader},
	}
	type choice struct{ id, label, role, url string }
	tests := []struct {
		name       string
		ms         []models.WorkspaceMembership
		current    string
		target     SwitchTarget
		wantLabel  string
		wantRole   string
		wantChosen string
		choices    []choice
		nav        [4]string // dashboard, all jobs, calendars, month
	}{
		{"one workspace, all chosen", one, "", SwitchToDashboard, AllWorkspacesLabel, "", "",
			[]choice{{"", AllWorkspacesLabel, "", "/"}, {"default", "Default", "Owner", "/?ws=default"}},
			[4]string{"/", "/jobs", "/calendars", "/w/default/month"}},
		{"one workspace chosen", one, "default", SwitchToDashboard, "Default", "Owner", "default",
			[]choice{{"", AllWorkspacesLabel, "", "/"}, {"default", "Default", "Owner", "/?ws=default"}},
			[4]string{"/?ws=default", "/jobs?ws=default", "/w/default/calendars", "/w/default/month"}},
		{"several, one chosen, from All jobs", several, "team-a", SwitchToAllJobs, "Team A", "Reader", "team-a",
			[]choice{{"", AllWorkspacesLabel, "", "/jobs"}, {"default", "Default", "Owner", "/jobs?ws=default"},
				{"team-a", "Team A", "Reader", "/jobs?ws=team-a"}, {"team b", "team b", "Editor", "/jobs?ws=team+b"}},
			[4]string{"/?ws=team-a", "/jobs?ws=team-a", "/w/team-a/calendars", "/w/team-a/month"}},
		{"named in another case", several, "TEAM-A", SwitchToCalendars, "Team A", "Reader", "team-a",
			[]choice{{"", AllWorkspacesLabel, "", "/calendars"}, {"default", "Default", "Owner", "/w/default/calendars"},
				{"team-a", "Team A", "Reader", "/w/team-a/calendars"}, {"team b", "team b", "Editor", "/w/team%20b/calendars"}},
			[4]string{"/?ws=team-a", "/jobs?ws=team-a", "/w/team-a/calendars", "/w/team-a/month"}},
		{"not a member: all", several, "other", SwitchToMonth, AllWorkspacesLabel, "", "",
			[]choice{{"", AllWorkspacesLabel, "", "/"}, {"default", "Default", "Owner", "/w/default/month"},
				{"team-a", "Team A", "Reader", "/w/team-a/month"}, {"team b", "team b", "Editor", "/w/team%20b/month"}},
			[4]string{"/", "/jobs", "/calendars", "/w/default/month"}},
		{"all, no default workspace: the first one's month view", noDefault, "", SwitchToMembers, AllWorkspacesLabel, "", "",
			[]choice{{"", AllWorkspacesLabel, "", "/workspaces"}, {"ops", "Ops", "Operator", "/workspaces/ops/members"},
				{"team-a", "Team A", "Reader", "/workspaces/team-a/members"}},
			[4]string{"/", "/jobs", "/calendars", "/w/ops/month"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sw := NewWorkspaceSwitcher(tc.ms, tc.current, tc.target)
			if sw == nil {
				t.Fatal("no switcher")
			}
			if sw.Label != tc.wantLabel || sw.Role != tc.wantRole || sw.Current != tc.wantChosen {
				t.Errorf("label %q role %q current %q; want %q %q %q", sw.Label, sw.Role, sw.Current, tc.wantLabel, tc.wantRole, tc.wantChosen)
			}
			if len(sw.Choices) != len(tc.choices) {
				t.Fatalf("choices %+v, want %+v", sw.Choices, tc.choices)
			}
			for i, want := range tc.choices {
				got := sw.Choices[i]
				if got.ID != want.id || got.Label != want.label || got.Role != want.role || got.URL != want.url || got.Current != (want.id == tc.wantChosen) {
					t.Errorf("choice %d = %+v, want %+v (current %v)", i, got, want, want.id == tc.wantChosen)
				}
			}
			if nav := [4]string{sw.DashboardURL, sw.AllJobsURL, sw.CalendarsURL, sw.MonthURL}; nav != tc.nav {
				t.Errorf("navigation %v, want %v", nav, tc.nav)
			}
		})
	}
	// The running-now, Channels and audit pages: the same page of the
	// chosen workspace; the navigation's links follow the choice (the home
	// workspace while all are chosen).
	for _, tc := range []struct {
		target                   SwitchTarget
		current                  string
		teamA, running, channels string
	}{
		{SwitchToRunning, "team-a", "/w/team-a/running", "/w/team-a/running", "/w/team-a/channels"},
		{SwitchToChannels, "", "/w/team-a/channels", "/w/default/running", "/w/default/channels"},
		{SwitchToAudit, "team b", "/w/team-a/audit", "/w/team%20b/running", "/w/team%20b/channels"},
	} {
		sw := NewWorkspaceSwitcher(several, tc.current, tc.target)
		if got := sw.Choices[2].URL; got != tc.teamA {
			t.Errorf("target %d: Team A leads to %q, want %q", tc.target, got, tc.teamA)
		}
		if sw.RunningURL != tc.running || sw.ChannelsURL != tc.channels {
			t.Errorf("target %d, current %q: running %q channels %q, want %q %q", tc.target, tc.current, sw.RunningURL, sw.ChannelsURL, tc.running, tc.channels)
		}
	}
	if sw := NewWorkspaceSwitcher(nil, "", SwitchToDashboard); sw != nil {
		t.Errorf("no memberships: %+v, want no switcher", sw)
	}
}

// TestPageNavWithoutSwitcher checks the navigation's links of a page
// without a switcher: as before there was one.
func TestPageNavWithoutSwitcher(t *testing.T) {
	var p Page
	if got := [6]string{p.NavDashboard(), p.NavAllJobs(), p.NavCalendars(), p.NavMonth(), p.NavRunning(), p.NavChannels()}; got != [6]string{"/", "/jobs", "/w/default/calendars", "/w/default/month", "/w/default/running", "/w/default/channels"} {
		t.Errorf("navigation %v", got)
	}
}

// TestNewWorkspaceCalendars checks a workspace's section of the calendars
// of all workspaces: its display name (its id without one) and its page.
func TestNewWorkspaceCalendars(t *testing.T) {
	rows := []CalendarRow{{Name: "holidays"}}
	tests := []struct {
		m    models.WorkspaceMembership
		want WorkspaceCalendars
	}{
		{models.WorkspaceMembership{ID: "team a", DisplayName: "Team A", Role: models.RoleReader},
			WorkspaceCalendars{ID: "team a", Label: "Team A", URL: "/w/team%20a/calendars", Rows: rows}},
		{models.WorkspaceMembership{ID: "ops", Role: models.RoleOwner},
			WorkspaceCalendars{ID: "ops", Label: "ops", URL: "/w/ops/calendars", Rows: rows}},
	}
	for _, tc := range tests {
		got := NewWorkspaceCalendars(tc.m, rows)
		if got.ID != tc.want.ID || got.Label != tc.want.Label || got.URL != tc.want.URL || len(got.Rows) != 1 {
			t.Errorf("NewWorkspaceCalendars(%+v) = %+v, want %+v", tc.m, got, tc.want)
		}
	}
}

// TestDashboardInWorkspace checks that the dashboard of a workspace
// creates its new collections there, and of all workspaces as before.
func TestDashboardInWorkspace(t *testing.T) {
	for ws, want := range map[string]string{"": "/collections/new", "team a": "/collections/new?ws=team+a"} {
		if got := (Dashboard{NewCollectionURL: "x"}).InWorkspace(ws).NewCollectionURL; got != want {
			t.Errorf("InWorkspace(%q): New collection %q, want %q", ws, got, want)
		}
	}
	sw := NewWorkspaceSwitcher([]models.WorkspaceMembership{{ID: "ops", Role: models.RoleEditor}}, "ops", SwitchToNewCollection)
	if got := sw.Choices[0].URL + " " + sw.Choices[1].URL; got != "/collections/new /collections/new?ws=ops" {
		t.Errorf("choices from the new collection form: %s", got)
	}
}
