package web

import (
	"net/url"
	"strconv"
)

// The one place that builds the app's page URLs. Each helper escapes its
// name segments with url.PathEscape; the shapes match the routes
// registered in handlers.

// NewCollectionPath is the page that creates a job collection.
const NewCollectionPath = "/collections/new"

// NewCollectionOf is the page that creates a job collection in workspace
// ws (?ws=); "" is the user's first workspace.
func NewCollectionOf(ws string) string {
	if ws == "" {
		return NewCollectionPath
	}
	return NewCollectionPath + "?ws=" + url.QueryEscape(ws)
}

// CollectionPath is the page of a job collection from its names.
func CollectionPath(ws, rg, coll string) string {
	return "/c/" + url.PathEscape(ws) + "/" + url.PathEscape(rg) + "/" + url.PathEscape(coll)
}

// CollectionPagePath is the collection page from the job named after
// (keyset cursor of the job list); "" is the first page.
func CollectionPagePath(ws, rg, coll, after string) string {
	if after == "" {
		return CollectionPath(ws, rg, coll)
	}
	return CollectionPath(ws, rg, coll) + "?after=" + url.QueryEscape(after)
}

// CollectionEnablePath enables a collection (POST).
func CollectionEnablePath(ws, rg, coll string) string {
	return CollectionPath(ws, rg, coll) + "/enable"
}

// CollectionDisablePath disables a collection (POST).
func CollectionDisablePath(ws, rg, coll string) string {
	return CollectionPath(ws, rg, coll) + "/disable"
}

// NewJobPath is the form that creates a job in a collection.
func NewJobPath(ws, rg, coll string) string { return CollectionPath(ws, rg, coll) + "/jobs/new" }

// JobPreviewPath is where the job form posts for its live preview.
func JobPreviewPath(ws, rg, coll string) string {
	return CollectionPath(ws, rg, coll) + "/jobs/preview"
}

// JobPath is the page of a job from its names.
func JobPath(ws, rg, coll, job string) string {
	return CollectionPath(ws, rg, coll) + "/jobs/" + url.PathEscape(job)
}

// JobEditPath is the form that edits a job.
func JobEditPath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/edit" }

// JobHistoryPath is the history page of a job.
func JobHistoryPath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/history" }

// JobTimelinePath is the timeline fragment of a job.
func JobTimelinePath(ws, rg, coll, job string) string {
	return JobPath(ws, rg, coll, job) + "/timeline"
}

// JobTrendsPath is the trends fragment of a job (success rates and the
// chart of the last runs).
func JobTrendsPath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/trends" }

// JobDeadlinePath is a job page's deadline block as a fragment.
func JobDeadlinePath(ws, rg, coll, job string) string {
	return JobPath(ws, rg, coll, job) + "/deadline"
}

// JobRunPath runs a job now (POST).
func JobRunPath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/run" }

// JobEnablePath enables a job (POST).
func JobEnablePath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/enable" }

// JobDisablePath disables a job (POST).
func JobDisablePath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/disable" }

// JobDeletePath is the delete confirmation of a job.
func JobDeletePath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/delete" }

// JobExportPath is the ARM JSON download of a job.
func JobExportPath(ws, rg, coll, job string) string {
	return JobPath(ws, rg, coll, job) + "/export.json"
}

// JobFeedPath is the iCalendar feed of a job's runs, with its token.
func JobFeedPath(ws, rg, coll, job, token string) string {
	return JobPath(ws, rg, coll, job) + "/calendar.ics?token=" + url.QueryEscape(token)
}

// ExportPath downloads every job the user may see (JSON).
const ExportPath = "/export"

// ImportPath is the import page.
const ImportPath = "/import"

// AllCalendarsPath is the page of the calendars of all the user's
// workspaces.
const AllCalendarsPath = "/calendars"

// CalendarsPath is the page of a workspace's calendars.
func CalendarsPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/calendars" }

// NewCalendarPath is the form that creates a calendar in a workspace.
func NewCalendarPath(ws string) string { return CalendarsPath(ws) + "/new" }

// CalendarImportPath is the .ics import page of a workspace; name ("" for
// none) preselects the calendar to import into.
func CalendarImportPath(ws, name string) string {
	if name == "" {
		return CalendarsPath(ws) + "/import"
	}
	return CalendarsPath(ws) + "/import?name=" + url.QueryEscape(name)
}

// CalendarPath is the page of a calendar.
func CalendarPath(ws, name string) string { return CalendarsPath(ws) + "/" + url.PathEscape(name) }

// CalendarYearPath is the page of a calendar showing year.
func CalendarYearPath(ws, name string, year int) string {
	return CalendarPath(ws, name) + "?year=" + strconv.Itoa(year)
}

// CalendarEditPath is the form that edits a calendar.
func CalendarEditPath(ws, name string) string { return CalendarPath(ws, name) + "/edit" }

// CalendarExportPath is the .ics download of a calendar.
func CalendarExportPath(ws, name string) string { return CalendarPath(ws, name) + "/export.ics" }

// CalendarDeletePath is the delete confirmation of a calendar.
func CalendarDeletePath(ws, name string) string { return CalendarPath(ws, name) + "/delete" }

// MonthPath is the month view of a workspace.
func MonthPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/month" }

// MonthDayPath is the day fragment of a workspace's month view.
func MonthDayPath(ws string) string { return MonthPath(ws) + "/day" }

// AllJobsBasePath is the "All jobs" page without a query.
const AllJobsBasePath = "/jobs"

// AllJobsPath is the "All jobs" page with the search, filters, order and
// cursor q (see AllJobsParams.Values).
func AllJobsPath(q url.Values) string {
	if len(q) == 0 {
		return AllJobsBasePath
	}
	return AllJobsBasePath + "?" + q.Encode()
}

// DashboardOf is the dashboard of workspace ws (?ws=), of all the user's
// workspaces when ws is "".
func DashboardOf(ws string) string {
	if ws == "" {
		return DashboardPath
	}
	return DashboardPath + "?ws=" + url.QueryEscape(ws)
}

// AllJobsOf is the "All jobs" page of workspace ws (?ws=), of all the
// user's workspaces when ws is "".
func AllJobsOf(ws string) string {
	if ws == "" {
		return AllJobsBasePath
	}
	return AllJobsPath(url.Values{"ws": {ws}})
}

// SignInOIDCPath is the start of the OpenID Connect sign-in, which comes
// back to next (a local path; "" or "/" is the dashboard).
func SignInOIDCPath(next string) string {
	if next == "" || next == "/" {
		return "/signin/oidc"
	}
	return "/signin/oidc?next=" + url.QueryEscape(next)
}

// The account and sign-in pages: fixed paths.
const (
	DashboardPath             = "/"
	SetupPath                 = "/setup"
	SignInPath                = "/signin"
	SignOutPath               = "/signout"
	AccountPath               = "/account"
	AccountPasswordPath       = "/account/password"
	AccountTimeZonePath       = "/account/time-zone"
	AccountEndOtherSessions   = "/account/sessions/end-others"
	AccountEndAllSessions     = "/account/sessions/end-all"
	TokensPath                = "/tokens"
	UsersPath                 = "/users"
	WorkspacesPath            = "/workspaces"
	TokensWorkspacesPath      = TokensPath + "#workspaces"
	AccountPasswordChangedURL = AccountPath + "?password=changed"
	AccountTimeZoneChangedURL = AccountPath + "?time-zone=changed"
)

// TokenRevokePath revokes the API token id.
func TokenRevokePath(id int64) string {
	return TokensPath + "/" + strconv.FormatInt(id, 10) + "/revoke"
}

// AuditPath is the audit log page of a workspace, filtered by q (nil: no
// filter).
func AuditPath(ws string, q url.Values) string {
	p := "/w/" + url.PathEscape(ws) + "/audit"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// AuditOfPath is the audit log page of a workspace filtered to one
// resource (models.AuditJobResource, …) and what is under it.
func AuditOfPath(ws, resource string) string {
	return AuditPath(ws, url.Values{"resource": {resource}})
}

// AllJobsBulkPath is the bulk actions of the "All jobs" page (POST).
func AllJobsBulkPath() string { return AllJobsBasePath + "/bulk" }

// MonitorsPath is the page of a workspace's heartbeat monitors.
func MonitorsPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/monitors" }

// NewMonitorPath is the form that creates a monitor in a workspace.
func NewMonitorPath(ws string) string { return MonitorsPath(ws) + "/new" }

// MonitorPath is the page of a monitor.
func MonitorPath(ws, name string) string { return MonitorsPath(ws) + "/" + url.PathEscape(name) }
