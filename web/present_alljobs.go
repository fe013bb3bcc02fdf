package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// The presenters of the "All jobs" page: its query parameters (the whole
// filter is in the URL), the store's search they ask for, the form and
// the results.

// AllJobsPageSize is how many jobs a page of "All jobs" shows.
const AllJobsPageSize = 50

// RecentFailureWindow is how far back the "failures (24 h)" column and
// the "failed in the last 24 hours" filter look.
const RecentFailureWindow = 24 * time.Hour

// MaxSearchLength bounds the search text (in bytes).
const MaxSearchLength = 200

// The choices of the page's selects; the first of each is "any".
var (
	allJobsStateChoices  = jobStateChoices()
	allJobsResultChoices = append(historyStatusChoices("Any last result"), Choice{"none", "Never ran"})
	allJobsSortChoices   = []Choice{{"next", "Next run, soonest first"}, {"last", "Last run, newest first"}, {"name", "Name, A to Z"}, {"failures", "Most failures (all time)"}}
)

// sortSummaries say each order in the results' summary.
var sortSummaries = map[models.JobSort]string{
	models.SortNext: "soonest next run first", models.SortLast: "newest last run first",
	models.SortName: "by name", models.SortFailures: "most failures first",
}

// AllJobsParams are the query parameters of the "All jobs" page. The zero
// value is the first page of every job, soonest next run first.
type AllJobsParams struct {
	// Query is the search text (q).
	Query string
	// State (state) and Result (result) are filters, "" for any.
	State, Result string
	// Collection (collection) is "workspace/resource group/collection".
	Collection string
	// Zone (tz) is a time zone name as jobs write it.
	Zone string
	// Failed24h (failed=24h) keeps the jobs with a failure in the last
	// RecentFailureWindow.
	Failed24h bool
	// HasAlerts (alerts=1) keeps the jobs at least one alert rule applies
	// to.
	HasAlerts bool
	// Sort (sort) is the order; After (after) the end of the previous
	// page, nil on the first.
	Sort  models.JobSort
	After *models.JobCursor
	// Workspace (ws) is the workspace searched (the header's switcher),
	// "" for all the user's; a scope rather than a filter, it is kept by
	// "Clear search and filters".
	Workspace string
}

// ParamError is a bad query parameter: its name and why.
type ParamError struct {
	Param, Message string
}

// Error implements error.
func (e *ParamError) Error() string { return e.Param + ": " + e.Message }

// ParseAllJobsParams reads the "All jobs" page's query; an unknown value
// is a *ParamError naming the parameter. Empty parameters are unset.
func ParseAllJobsParams(q url.Values) (AllJobsParams, error) {
	p := AllJobsParams{Sort: models.SortNext}
	bad := func(param, format string, args ...any) (AllJobsParams, error) {
		return p, &ParamError{Param: param, Message: fmt.Sprintf(format, args...)}
	}
	p.Workspace = strings.TrimSpace(q.Get("ws"))
	p.Query = strings.TrimSpace(q.Get("q"))
	if len(p.Query) > MaxSearchLength {
		return bad("q", "the search text is longer than %d characters", MaxSearchLength)
	}
	if p.State = q.Get("state"); !isChoice(allJobsStateChoices, p.State) {
		return bad("state", "%q is not a job state (enabled, disabled, completed, faulted)", p.State)
	}
	if p.Result = q.Get("result"); !isChoice(allJobsResultChoices, p.Result) {
		return bad("result", "%q is not a last result (Completed, Failed, Postponed, none)", p.Result)
	}
	p.Collection = strings.TrimSpace(q.Get("collection"))
	if p.Collection != "" && strings.Count(p.Collection, "/") != 2 {
		return bad("collection", "%q is not workspace/resource group/collection", p.Collection)
	}
	if p.Zone = strings.TrimSpace(q.Get("tz")); p.Zone != "" {
		if _, err := jobdef.LoadZone(p.Zone); err != nil {
			return bad("tz", "%q is not a known IANA or Windows time zone", p.Zone)
		}
	}
	switch f := q.Get("failed"); f {
	case "":
	case "24h":
		p.Failed24h = true
	default:
		return bad("failed", "%q is not 24h", f)
	}
	switch a := q.Get("alerts"); a {
	case "":
	case "1":
		p.HasAlerts = true
	default:
		return bad("alerts", "%q is not 1", a)
	}
	if s := q.Get("sort"); s != "" {
		if !isChoice(allJobsSortChoices, s) {
			return bad("sort", "%q is not an order (next, last, name, failures)", s)
		}
		p.Sort = models.JobSort(s)
	}
	if a := q.Get("after"); a != "" {
		c, err := ParseJobCursor(p.Sort, a)
		if err != nil {
			return bad("after", "%q is not a position in this order", a)
		}
		p.After = c
	}
	return p, nil
}

// isChoice reports whether v is the value of one of cs.
func isChoice(cs []Choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

// FormatJobCursor writes c for order sort as the after parameter: the
// sort key, a comma, the job id. Times are RFC 3339 in UTC, "none" for
// a job without that run.
func FormatJobCursor(sort models.JobSort, c models.JobCursor) string {
	var key string
	switch sort {
	case models.SortName:
		key = c.Name
	case models.SortFailures:
		key = strconv.FormatInt(c.Count, 10)
	default:
		key = "none"
		if c.Time != nil {
			key = c.Time.UTC().Format(time.RFC3339Nano)
		}
	}
	return key + "," + strconv.FormatInt(c.ID, 10)
}

// ParseJobCursor reads an after parameter written by FormatJobCursor.
func ParseJobCursor(sort models.JobSort, s string) (*models.JobCursor, error) {
	i := strings.LastIndexByte(s, ',')
	if i < 0 {
		return nil, fmt.Errorf("web: cursor %q without an id", s)
	}
	id, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Errorf("web: cursor %q: bad id", s)
	}
	c := &models.JobCursor{ID: id}
	key := s[:i]
	switch sort {
	case models.SortName:
		if key == "" || key != strings.ToLower(key) {
			return nil, fmt.Errorf("web: cursor %q: bad name", s)
		}
		c.Name = key
	case models.SortFailures:
		if c.Count, err = strconv.ParseInt(key, 10, 64); err != nil || c.Count < 0 {
			return nil, fmt.Errorf("web: cursor %q: bad count", s)
		}
	default:
		if key != "none" {
			t, err := time.Parse(time.RFC3339Nano, key)
			if err != nil {
				return nil, fmt.Errorf("web: cursor %q: %w", s, err)
			}
			c.Time = &t
		}
	}
	return c, nil
}

// Values is p as query parameters, without the defaults, and with the
// cursor when withCursor.
func (p AllJobsParams) Values(withCursor bool) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("ws", p.Workspace)
	set("q", p.Query)
	set("state", p.State)
	set("result", p.Result)
	set("collection", p.Collection)
	set("tz", p.Zone)
	if p.Failed24h {
		q.Set("failed", "24h")
	}
	if p.HasAlerts {
		q.Set("alerts", "1")
	}
	if p.Sort != "" && p.Sort != models.SortNext {
		q.Set("sort", string(p.Sort))
	}
	if withCursor && p.After != nil {
		q.Set("after", FormatJobCursor(p.Sort, *p.After))
	}
	return q
}

// Filtered reports whether p narrows the jobs (a search or a filter).
func (p AllJobsParams) Filtered() bool {
	return p.Query != "" || p.State != "" || p.Result != "" || p.Collection != "" || p.Zone != "" || p.Failed24h || p.HasAlerts
}

// AllJobsSearch is the store's search for p at now among the collections
// of scope (all: they are every collection there is).
func AllJobsSearch(p AllJobsParams, scope []models.VisibleCollection, all bool, now time.Time) models.JobSearchParams {
	s := models.JobSearchParams{Collections: scope, AllCollections: all, Query: p.Query,
		LastResult: p.Result, Zone: p.Zone, HasAlerts: p.HasAlerts, Sort: p.Sort, After: p.After, Limit: AllJobsPageSize + 1,
		FailuresSince: now.Add(-RecentFailureWindow)}
	if p.State != "" {
		s.States = []string{p.State}
	}
	if p.Failed24h {
		s.FailedSince = s.FailuresSince
	}
	return s
}

// NewAllJobsForm is the filter form of p, offering the collections the
// user may see and the time zones zones.
func NewAllJobsForm(p AllJobsParams, collections []models.VisibleCollection, zones []string) AllJobsForm {
	f := AllJobsForm{Action: AllJobsPath(url.Values{}), Query: p.Query, State: p.State, States: allJobsStateChoices,
		Result: p.Result, Results: allJobsResultChoices, Collection: p.Collection, Zone: p.Zone, Zones: zones,
		Failed24h: p.Failed24h, HasAlerts: p.HasAlerts, Sort: string(p.Sort), Sorts: allJobsSortChoices,
		Collections: []Choice{{"", "Any collection"}}, Workspace: p.Workspace}
	for _, c := range collections {
		f.Collections = append(f.Collections, Choice{c.Path(), c.Path()})
	}
	if p.Filtered() {
		f.ClearURL = AllJobsPath(AllJobsParams{Sort: p.Sort, Workspace: p.Workspace}.Values(false))
	}
	return f
}

// AllJobsItem is one job of the "All jobs" page with its definition read
// back and its next run (none when empty).
type AllJobsItem struct {
	Row    *models.JobSearchRow
	Stored StoredJob
	Next   []time.Time
}

// NewAllJobsResults is the page of results of p: items holds up to
// AllJobsPageSize jobs and one more when there is a next page.
func NewAllJobsResults(p AllJobsParams, items []AllJobsItem, now time.Time) AllJobsResults {
	var r AllJobsResults
	if p.After != nil {
		r.FirstURL = AllJobsPath(p.Values(false))
	}
	next := p
	if len(items) > AllJobsPageSize {
		items = items[:AllJobsPageSize]
		c := items[len(items)-1].Row.Cursor(p.Sort)
		next.After = &c
	}
	if next.After != p.After {
		r.NextURL = AllJobsPath(next.Values(true))
	}
	for _, it := range items {
		r.Rows = append(r.Rows, newAllJobsRow(it, now))
	}
	switch {
	case len(items) > 0:
		n := Plural(int64(len(items)), "job", "jobs")
		switch {
		case p.After != nil:
			n = "The next " + n
		case r.NextURL != "":
			n = "The first " + n
		}
		r.Summary = n + ", " + sortSummaries[p.Sort] + "."
	case p.After != nil:
		r.Empty = "No more jobs match."
	case p.Filtered():
		r.Empty = "No job matches this search and these filters."
	default:
		r.Empty = "You have no jobs yet. Create a collection and its jobs, or import them."
	}
	return r
}

// newAllJobsRow is the row of one job.
func newAllJobsRow(it AllJobsItem, now time.Time) AllJobsRow {
	j, pj := it.Row, it.Stored
	zone := pj.Zone()
	r := AllJobsRow{
		ID:   strconv.FormatInt(j.ID, 10),
		Name: j.Name, URL: JobPath(j.WorkspaceID, j.ResourceGroup, j.Collection, j.Name),
		Collection: j.ResourceGroup + "/" + j.Collection, CollectionURL: CollectionPath(j.WorkspaceID, j.ResourceGroup, j.Collection),
		Workspace:   j.WorkspaceID,
		Badge:       jobStateBadge(j.State),
		Description: pj.Describe(ScheduleBase(j.ScheduleBase, j.CreatedAt)),
		Failures24h: FormatCount(j.RecentFailures), HasFailures24h: j.RecentFailures > 0,
	}
	if j.StateNote != "" { // lists say who paused a job only when they said why
		r.StateNote = NewStateNote(j.State, j.StateNote, j.StateChangedBy, j.StateChangedAt, zone, now)
	}
	if pj.Job == nil {
		r.Description = pj.Problem
	}
	if len(it.Next) > 0 {
		r.Next = InstantIn(it.Next[0], zone, now)
	} else {
		r.NextNote = noNextNote(j.State)
	}
	if j.LastStatus != nil {
		r.LastResult = historyBadge(*j.LastStatus)
		r.LastAt = InstantPtr(j.LastStartTime, zone, now)
	}
	return r
}

// jobStateChoices are the job state filter's choices: any, then each
// state.
func jobStateChoices() []Choice {
	out := []Choice{{"", "Any state"}}
	for _, st := range models.JobStates {
		out = append(out, Choice{string(st), st.Label()})
	}
	return out
}
