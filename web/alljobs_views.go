package web

// The view models of the "All jobs" page (alljobs.templ); the presenters
// that fill them are in present_alljobs.go.

// AllJobsView is the "All jobs" page: the filter form and the first
// results.
type AllJobsView struct {
	Form    AllJobsForm
	Results AllJobsResults
	// Flash is the result of the last bulk action ("48 disabled, 2
	// already completed."), "" for none.
	Flash string
}

// AllJobsForm is the page's filter form (a GET: the filter is the URL),
// each field with its current value and its choices.
type AllJobsForm struct {
	// Action is the form's target, the page itself.
	Action string
	Query  string
	State  string
	States []Choice
	// Result is the last result filter; Results its choices.
	Result  string
	Results []Choice
	// Collection is "workspace/resource group/collection"; Collections
	// are the collections the user may see.
	Collection  string
	Collections []Choice
	// Zone is the time zone filter, Zones the names offered (a datalist:
	// any name may be typed).
	Zone  string
	Zones []string
	// Failed24h keeps the jobs that failed in the last 24 hours.
	Failed24h bool
	// HasAlerts keeps the jobs at least one alert rule applies to.
	HasAlerts bool
	Sort      string
	Sorts     []Choice
	// ClearURL is the page without any filter, "" when none is set.
	ClearURL string
	// Workspace is the workspace searched (a hidden field), "" for all.
	Workspace string
}

// AllJobsResults is the #all-jobs-results fragment: a page of the jobs
// that match, the links to the next and first pages, and what to say
// when none match.
type AllJobsResults struct {
	Rows []AllJobsRow
	// Summary says what the page shows ("50 jobs, soonest next run
	// first"); Empty replaces the table when no job matches.
	Summary, Empty string
	// NextURL is the next page (keyset cursor in the URL), FirstURL the
	// first page when this is not it.
	NextURL, FirstURL string
	// Bulk is the bulk actions' form around the rows (its Action "" when
	// the viewer has no job to act on).
	Bulk BulkBar
}

// AllJobsRow is one job of the "All jobs" page.
type AllJobsRow struct {
	// ID is the job's id, the value of its bulk checkbox.
	ID        string
	Name, URL string
	// Collection is "resource group/collection", CollectionURL its page.
	Collection, CollectionURL string
	Workspace                 string
	Badge                     BadgeView
	Description               string
	Next                      Instant
	// NextNote replaces Next when there is no next run ("Disabled").
	NextNote   string
	LastResult BadgeView
	LastAt     Instant
	// Failures24h counts the Failed runs of the last 24 hours;
	// HasFailures24h says it is not zero.
	Failures24h    string
	HasFailures24h bool
	// StateNote is who paused the job, when and why (Text "" when not
	// paused or without a note).
	StateNote StateNoteView
}
