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

// The presenters of the job page and its history page: the head, the
// status fragment, the history table and its filter, and the delete
// confirmation. The timeline is in present_charts.go.

// Sizes of the job page's lists.
const (
	// HistoryPageSize is how many entries a page of the history table
	// shows.
	HistoryPageSize = 20
	// NextOccurrenceN is how many next runs the status fragment lists.
	NextOccurrenceN = 10
)

// HistoryParams are the query parameters of the job and history pages:
// the timeline's range, the table's filters (a status and an action, ""
// for any) and its keyset cursor (BeforeID 0 for the newest page).
type HistoryParams struct {
	Range       TimelineRange
	Status      models.HistoryStatus
	Action      models.ActionName
	BeforeStart time.Time
	BeforeID    int64
}

// Query writes the table's parameters (with the cursor when withCursor)
// as a query string, "" when there are none.
func (p HistoryParams) Query(withCursor bool) string {
	q := url.Values{}
	if p.Status != "" {
		q.Set("status", string(p.Status))
	}
	if p.Action != "" {
		q.Set("action", string(p.Action))
	}
	if withCursor && p.BeforeID != 0 {
		q.Set("before", p.BeforeStart.UTC().Format(time.RFC3339Nano)+","+strconv.FormatInt(p.BeforeID, 10))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// NewJobPageView is the job page (or, historyOnly, the history page) of j
// in row without its status, timeline and table (NewJobStatus,
// NewTimelineView, NewHistoryTable): its head and the table's filter.
// pj is j's definition read back, feedURL its calendar feed (absolute).
func NewJobPageView(row *models.CollectionRow, j *models.JobDetail, pj StoredJob, feedURL string, p HistoryParams, historyOnly bool) JobPageView {
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	return JobPageView{
		HistoryOnly: historyOnly,
		Head: JobHead{
			Workspace: ws, ResourceGroup: rg, Collection: coll, CollectionURL: CollectionPath(ws, rg, coll),
			Name: j.Name, URL: JobPath(ws, rg, coll, j.Name), EditURL: JobEditPath(ws, rg, coll, j.Name),
			ExportURL: JobExportPath(ws, rg, coll, j.Name), HistoryURL: JobHistoryPath(ws, rg, coll, j.Name),
			Description: pj.Describe(ScheduleBase(j.ScheduleBase, j.CreatedAt)), Zone: pj.Zone().String(), Target: pj.Target(),
			Problem: pj.Problem, Cron: pj.Cron(), FeedURL: feedURL,
		},
		Filter: HistoryFilter{URL: JobHistoryPath(ws, rg, coll, j.Name), Status: string(p.Status), Action: string(p.Action),
			Statuses: historyStatusChoices("Any status"), Actions: actionChoices(),
		},
	}
}

// NewJobStatus is the status fragment of j in row at now: last is its
// latest history entry (nil for none), next its next runs. The handler
// adds the CSRF token and the messages.
func NewJobStatus(row *models.CollectionRow, j *models.JobDetail, pj StoredJob, last *models.HistoryEntry, next []time.Time, now time.Time) JobStatus {
	zone := pj.Zone()
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	st := JobStatus{
		URL: JobPath(ws, rg, coll, j.Name), Name: j.Name,
		RunURL: JobRunPath(ws, rg, coll, j.Name), EnableURL: JobEnablePath(ws, rg, coll, j.Name),
		DisableURL: JobDisablePath(ws, rg, coll, j.Name), DeleteURL: JobDeletePath(ws, rg, coll, j.Name),
		Badge:  jobStateBadge(j.State),
		CanRun: j.State == jobdef.Enabled && row.State == models.CollectionEnabled, CanEnable: j.State == jobdef.Disabled, CanDisable: j.State == jobdef.Enabled,
		CanDelete:  true,
		Executions: FormatCount(j.ExecutionCount), Failures: FormatCount(j.FailureCount), Faulted: FormatCount(j.FaultedCount),
		Zone:      zone.String(),
		StateNote: NewStateNote(j.State, j.StateNote, j.StateChangedBy, j.StateChangedAt, zone, now),
		NoteMax:   jobdef.MaxStateNote,
		NoteEdit:  NewJobNoteEdit(row, j),
	}
	if row.State != models.CollectionEnabled {
		st.CollectionNote = fmt.Sprintf("The collection %s is %s: none of its jobs runs until it is enabled again.",
			row.Name, strings.ToLower(string(row.State)))
	}
	if last != nil {
		st.LastRun, st.LastResult = InstantIn(last.StartTime, zone, now), historyBadge(last.Status)
	} else {
		st.LastRun = InstantPtr(j.LastRunAt, zone, now)
	}
	for _, t := range next {
		st.Next = append(st.Next, InstantIn(t, zone, now))
	}
	if len(st.Next) == 0 {
		switch j.State {
		case jobdef.Disabled:
			st.NextNote = "The job is disabled: nothing is scheduled. Enabling it schedules it from then on."
		case jobdef.Completed:
			st.NextNote = "The job is completed: no occurrence is left."
		case jobdef.Faulted:
			st.NextNote = "The job is faulted: its last occurrence failed and none is left."
		default:
			if pj.Job != nil && pj.Job.Trigger != nil {
				st.NextNote = "The job runs after other jobs (see Chain): it has no schedule of its own."
				break
			}
			st.NextNote = "No occurrence is left."
		}
	}
	return st
}

// NewTimelineInput is the frame of j's timeline over r ending at now, its
// data still to fill (Entries, or Buckets with Bucketed): the range, the
// zone and the links (to the history page when historyPage).
func NewTimelineInput(row *models.CollectionRow, j *models.JobDetail, r TimelineRange, now time.Time, historyPage bool) TimelineInput {
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	in := TimelineInput{Range: r, From: now.Add(-r.Span), To: now, Now: now, Zone: ParseStored(j.Definition).Zone(),
		PageURL: JobPath(ws, rg, coll, j.Name) + "?range=", FragmentURL: JobTimelinePath(ws, rg, coll, j.Name) + "?range="}
	if historyPage {
		in.PageURL, in.FragmentURL = JobHistoryPath(ws, rg, coll, j.Name)+"?range=", JobTimelinePath(ws, rg, coll, j.Name)+"?page=history&range="
	}
	in.URL = in.FragmentURL + r.Value
	in.NeverRan = j.ExecutionCount == 0 && j.FailureCount == 0 && j.FaultedCount == 0
	return in
}

// NewHistoryTable is one page of j's history table at now: entries are
// those after the cursor of p that match its filters, newest first, up to
// HistoryPageSize and one more when there is an older page.
func NewHistoryTable(row *models.CollectionRow, j *models.JobDetail, p HistoryParams, entries []models.HistoryEntry, now time.Time) HistoryTable {
	zone := ParseStored(j.Definition).Zone()
	hb := JobHistoryPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	t := HistoryTable{URL: hb + p.Query(true), Filtered: p.Status != "" || p.Action != "", Zone: zone.String()}
	if p.BeforeID != 0 {
		t.NewestURL = hb + p.Query(false)
	}
	if len(entries) > HistoryPageSize {
		entries = entries[:HistoryPageSize]
		last := entries[len(entries)-1]
		older := p
		older.BeforeStart, older.BeforeID = last.StartTime, last.ID
		t.OlderURL = hb + older.Query(true)
	}
	for _, e := range entries {
		r := HistoryRow{
			ID: strconv.FormatInt(e.ID, 10), Start: InstantIn(e.StartTime, zone, now), Expected: InstantIn(e.ExpectedExecutionTime, zone, now),
			Badge: historyBadge(e.Status), Action: string(e.ActionName), Attempt: strconv.Itoa(e.RetryCount),
			Occurrence: "#" + strconv.FormatInt(e.RepeatCount, 10), Lateness: LatenessText(e.LatenessMs), Duration: "—",
			Summary: MessageSummary(e.Message), Message: e.Message, LimitWait: LimitWaitText(e.LimitWaitMs),
		}
		if e.EndTime != nil {
			r.Duration = SpanText(e.EndTime.Sub(e.StartTime))
		}
		r.DetailURL, r.RerunURL, r.RerunNote = historyRowLinks(row, j, &e)
		t.Rows = append(t.Rows, r)
	}
	return t
}

// NewJobDeleteView is the delete confirmation page of j; problem says why
// the last attempt did not delete it ("" for none).
func NewJobDeleteView(row *models.CollectionRow, j *models.JobDetail, csrf, problem string) JobDeleteView {
	jb := JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	return JobDeleteView{Name: j.Name, Collection: row.Name, URL: JobDeletePath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name),
		CancelURL: jb, CSRFToken: csrf, Error: problem}
}

// historyStatusChoices are a history status filter's choices: any (labelled
// any), then each status.
func historyStatusChoices(any string) []Choice {
	out := []Choice{{Value: "", Label: any}}
	for _, st := range models.HistoryStatuses {
		out = append(out, Choice{Value: string(st), Label: string(st)})
	}
	return out
}

// actionChoices are the history filter's action choices: any, then each
// action.
func actionChoices() []Choice {
	out := []Choice{{Value: "", Label: "Any action"}}
	for _, a := range models.ActionNames {
		out = append(out, Choice{Value: string(a), Label: string(a)})
	}
	return out
}
