package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"sked/models"
)

// The audit log's page and the "last changed by" line of the job and
// collection pages (SPEC §13.5).

// AuditParams is the audit page's (and API's) filter: what the query
// says, and the instants its dates name.
type AuditParams struct {
	// Actor, Resource and Action filter as models.AuditFilter's fields.
	Actor, Resource, Action string
	// Since and Until are as given: a date (YYYY-MM-DD, in the viewer's
	// zone; Until includes its day) or an RFC 3339 instant.
	Since, Until string
	// From and To are the instants they name (zero: unbounded), To
	// excluded.
	From, To time.Time
	// Before is the keyset cursor (0: the newest entries).
	Before int64
	// Limit caps a page (0: the store's default).
	Limit int
}

// auditDate is the layout of a date filter.
const auditDate = "2006-01-02"

// ParseAuditParams reads the audit filter of q: actor, resource, action
// (an action or its family, e.g. "job"), since, until (dates in loc, or
// RFC 3339 instants), before (a cursor) and $top (1–500). A bad value is a
// *ParamError naming the parameter.
func ParseAuditParams(q url.Values, loc *time.Location) (AuditParams, error) {
	if loc == nil {
		loc = time.UTC
	}
	p := AuditParams{Actor: strings.TrimSpace(q.Get("actor")), Resource: strings.Trim(strings.TrimSpace(q.Get("resource")), "/"),
		Action: strings.TrimSpace(q.Get("action")), Since: strings.TrimSpace(q.Get("since")), Until: strings.TrimSpace(q.Get("until"))}
	if p.Action != "" && !knownAuditAction(p.Action) {
		return p, &ParamError{Param: "action", Message: "\"" + p.Action + "\" is not an action of the audit log (such as job.put, or job for all of a job's)"}
	}
	var err error
	if p.From, err = auditInstant(p.Since, loc, false); err != nil {
		return p, &ParamError{Param: "since", Message: "\"" + p.Since + "\" is not a date (YYYY-MM-DD) or an RFC 3339 time"}
	}
	if p.To, err = auditInstant(p.Until, loc, true); err != nil {
		return p, &ParamError{Param: "until", Message: "\"" + p.Until + "\" is not a date (YYYY-MM-DD) or an RFC 3339 time"}
	}
	if !p.From.IsZero() && !p.To.IsZero() && !p.From.Before(p.To) {
		return p, &ParamError{Param: "until", Message: "must be after since"}
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return p, &ParamError{Param: "before", Message: "\"" + v + "\" is not a cursor of the audit log"}
		}
		p.Before = n
	}
	if v := q.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return p, &ParamError{Param: "$top", Message: "\"" + v + "\" is not a number from 1 to 500"}
		}
		p.Limit = n
	}
	return p, nil
}

// auditInstant reads a date (its start in loc, or with end the start of
// the next day) or an RFC 3339 instant; "" is the zero time.
func auditInstant(s string, loc *time.Location, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseInLocation(auditDate, s, loc); err == nil {
		if end {
			d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc)
		}
		return d, nil
	}
	return time.Parse(time.RFC3339, s)
}

// knownAuditAction reports whether a is an action or a family of actions.
func knownAuditAction(a string) bool {
	for _, k := range models.AuditActions {
		if k == a || strings.HasPrefix(k, a+".") {
			return true
		}
	}
	return false
}

// Filter is the store's filter of p in workspace ws.
func (p AuditParams) Filter(ws string) models.AuditFilter {
	return models.AuditFilter{WorkspaceID: ws, Actor: p.Actor, Resource: p.Resource, Action: p.Action, Since: p.From, Until: p.To,
		Before: p.Before, Limit: p.Limit}
}

// Values is p as a query, without empty parameters and the cursor (the
// filter a paging link keeps).
func (p AuditParams) Values() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"actor": p.Actor, "resource": p.Resource, "action": p.Action, "since": p.Since, "until": p.Until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Limit > 0 {
		q.Set("$top", strconv.Itoa(p.Limit))
	}
	return q
}

// AuditView is the audit page of a workspace.
type AuditView struct {
	WorkspaceID string
	Form        AuditForm
	Results     AuditResults
}

// AuditForm is the filter form, filled with the current filter.
type AuditForm struct {
	Action                             string // where it sends (GET)
	Actor, Resource, Since, Until, Act string
	// Actions are the choices of the action filter ("" first: any).
	Actions  []Choice
	ClearURL string // "" when nothing is filtered
}

// AuditResults is the list of entries and its paging (#audit-results).
type AuditResults struct {
	Rows []AuditRow
	// Empty says why there are no rows.
	Empty string
	// NextURL is the next (older) page; "" on the last.
	NextURL string
	// FirstURL is the newest page; "" on it.
	FirstURL string
}

// AuditRow is one entry.
type AuditRow struct {
	ID       string // the element id, "audit-<id>"
	When     Instant
	Actor    string // "ada", "ada with token ci", "engine", "ada (command line)"
	Via      string // "web", "API", "command line", "engine", ""
	Addr     string
	Action   string
	Resource string
	// ResourceURL filters the page to the resource ("" for none).
	ResourceURL string
	Detail      string
	Changes     []AuditChangeRow
}

// AuditChangeRow is one changed path: its old and new value ("—" when
// absent).
type AuditChangeRow struct {
	Path, Old, New string
}

// NewAuditView builds the audit page of ws from the filter p and a page
// of entries, at now in loc.
func NewAuditView(ws string, p AuditParams, page models.AuditPage, now time.Time, loc *time.Location) AuditView {
	f := AuditForm{Action: AuditPath(ws, nil), Actor: p.Actor, Resource: p.Resource, Since: p.Since, Until: p.Until, Act: p.Action,
		Actions: auditActionChoices()}
	if len(p.Values()) > 0 {
		f.ClearURL = AuditPath(ws, nil)
	}
	return AuditView{WorkspaceID: ws, Form: f, Results: NewAuditResults(ws, p, page, now, loc)}
}

// NewAuditResults is the list part of the audit page.
func NewAuditResults(ws string, p AuditParams, page models.AuditPage, now time.Time, loc *time.Location) AuditResults {
	r := AuditResults{Rows: make([]AuditRow, 0, len(page.Entries))}
	for i := range page.Entries {
		r.Rows = append(r.Rows, auditRow(ws, &page.Entries[i], now, loc))
	}
	if len(r.Rows) == 0 {
		r.Empty = "Nothing was changed in this workspace yet."
		if len(p.Values()) > 0 || p.Before > 0 {
			r.Empty = "No change matches this filter."
		}
	}
	if page.Next > 0 {
		q := p.Values()
		q.Set("before", strconv.FormatInt(page.Next, 10))
		r.NextURL = AuditPath(ws, q)
	}
	if p.Before > 0 {
		r.FirstURL = AuditPath(ws, p.Values())
	}
	return r
}

func auditRow(ws string, e *models.AuditEntry, now time.Time, loc *time.Location) AuditRow {
	r := AuditRow{ID: "audit-" + strconv.FormatInt(e.ID, 10), When: InstantIn(e.At, loc, now), Actor: AuditActor(e),
		Via: auditVia(e.Via), Addr: e.Addr, Action: e.Action, Resource: e.Resource, Detail: e.Detail}
	if r.Resource == "" {
		r.Resource = "workspace"
	} else {
		r.ResourceURL = AuditOfPath(ws, e.Resource)
	}
	for _, c := range e.Diff {
		r.Changes = append(r.Changes, AuditChangeRow{Path: c.Path, Old: orDash(c.Old), New: orDash(c.New)})
	}
	return r
}

// AuditActor names who made a change: the user, with the API token's
// name, "engine", or for the command line the user and "(command line)".
func AuditActor(e *models.AuditEntry) string {
	name := e.ActorName
	if name == "" {
		name = "someone unknown"
	}
	switch e.ActorKind {
	case models.ActorToken:
		if e.TokenName != "" {
			return name + " with token " + e.TokenName
		}
		return name + " with an API token"
	case models.ActorCLI:
		return name + " (command line)"
	case models.ActorEngine:
		return "the engine"
	case models.ActorSystem:
		return "Sked"
	}
	return name
}

func auditVia(v string) string {
	switch v {
	case "api":
		return "API"
	case "cli":
		return "command line"
	}
	return v
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// auditActionChoices are the action filter's choices: any, then each
// family, then each action.
func auditActionChoices() []Choice {
	out := []Choice{{Value: "", Label: "Any action"}}
	seen := map[string]bool{}
	for _, a := range models.AuditActions {
		if fam, _, ok := strings.Cut(a, "."); ok && !seen[fam] {
			seen[fam] = true
			out = append(out, Choice{Value: fam, Label: "any " + fam + " change"})
		}
	}
	for _, a := range models.AuditActions {
		out = append(out, Choice{Value: a, Label: a})
	}
	return out
}

// LastChangedView is the "Last changed by ada, 3 h ago" line of a job or
// collection page, linking to its entries. The zero value shows nothing.
type LastChangedView struct {
	Text string
	// When is the change's time (its title).
	When string
	URL  string
}

// NewLastChanged is the line of e (nil: none) for the resource of ws, at
// now.
func NewLastChanged(ws, resource string, e *models.AuditEntry, now time.Time) LastChangedView {
	if e == nil {
		return LastChangedView{}
	}
	return LastChangedView{Text: "Last changed by " + AuditActor(e) + ", " + RelativeTime(e.At.Sub(now)),
		When: e.At.UTC().Format(time.RFC3339), URL: AuditOfPath(ws, resource)}
}
