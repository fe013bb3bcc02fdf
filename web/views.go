// Package web holds Sked's templ components and the view models they take.
// Components do no database work and no time arithmetic: handlers fill the
// view models.
package web

import "sked/models"

// Page carries what every full page needs.
type Page struct {
	// Title is the page title, shown in the browser tab after "Sked · ".
	Title string
	// CSRFToken goes into the csrf-token meta tag (htmx sends it as a
	// header) and into every form as the hidden field csrf_token.
	CSRFToken string
	// User is the signed-in user, or nil on the sign-in and setup pages.
	User *UserView
	// Switcher is the header's workspace switcher, nil when not shown.
	Switcher *WorkspaceSwitcher
}

// NavDashboard is the navigation's dashboard link: of the chosen
// workspace when there is a switcher.
func (p Page) NavDashboard() string {
	if p.Switcher != nil {
		return p.Switcher.DashboardURL
	}
	return DashboardPath
}

// NavAllJobs is the navigation's "All jobs" link.
func (p Page) NavAllJobs() string {
	if p.Switcher != nil {
		return p.Switcher.AllJobsURL
	}
	return AllJobsBasePath
}

// NavCalendars is the navigation's calendars link.
func (p Page) NavCalendars() string {
	if p.Switcher != nil {
		return p.Switcher.CalendarsURL
	}
	return CalendarsPath(models.DefaultWorkspaceID)
}

// NavMonth is the navigation's month view link.
func (p Page) NavMonth() string {
	if p.Switcher != nil {
		return p.Switcher.MonthURL
	}
	return MonthPath(models.DefaultWorkspaceID)
}

// NavRunning is the navigation's running-now link.
func (p Page) NavRunning() string {
	if p.Switcher != nil {
		return p.Switcher.RunningURL
	}
	return RunningPath(models.DefaultWorkspaceID)
}

// NavChannels is the navigation's Channels link.
func (p Page) NavChannels() string {
	if p.Switcher != nil {
		return p.Switcher.ChannelsURL
	}
	return ChannelsPath(models.DefaultWorkspaceID)
}

// UserView is the signed-in user as the navigation shows it.
type UserView struct {
	Username string
	IsAdmin  bool
}

// FieldErrors maps a form field name to its error message. A missing key
// means the field is fine.
type FieldErrors map[string]string

// SetupForm is the first-run setup form: the setup code from the log of
// sked serve and the first administrator's account. Passwords are never
// echoed back.
type SetupForm struct {
	SetupCode string
	Username  string
	Errors    FieldErrors
}

// SignInForm is the sign-in form. Error is the one message for a failed
// sign-in (it never says whether the user exists); Next is where to go
// afterwards. Provider labels the OpenID Connect button ("Sign in with
// Provider"); "" shows none.
type SignInForm struct {
	Username string
	Next     string
	Error    string
	Errors   FieldErrors
	Provider string
}

// ErrorView is an error page or fragment.
type ErrorView struct {
	Status  int
	Title   string
	Message string
}

// InputSpec describes one labelled text input of a form. Its ID is also the
// field's name and its key in FieldErrors.
type InputSpec struct {
	ID           string
	Label        string
	Type         string
	Autocomplete string
	Value        string
}
