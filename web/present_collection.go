package web

import (
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// The presenters of the collection page: its head, its state and quota,
// and the list of its jobs.

// JobListPageSize is how many jobs a page of a collection's list shows.
const JobListPageSize = 50

// NewCollectionPageView is the collection page of row without its status
// and job list (NewCollectionStatus, NewJobList); flash is the message of
// the previous request.
func NewCollectionPageView(row *models.CollectionRow, flash string) CollectionPageView {
	base := CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name)
	return CollectionPageView{
		Head: CollectionHead{Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name,
			URL: base, SKU: row.SKU, Location: row.Location},
		NewJobURL: NewJobPath(row.WorkspaceID, row.ResourceGroup, row.Name),
		Flash:     flash,
	}
}

// NewCollectionStatus is the state and quota fragment of a collection that
// holds jobs jobs (counted up to one more than its quota); msg confirms the
// last change.
func NewCollectionStatus(row *models.CollectionRow, jobs int64, csrf, msg string) CollectionStatus {
	q := row.Quota()
	st := CollectionStatus{
		URL: CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name), CSRFToken: csrf,
		EnableURL:  CollectionEnablePath(row.WorkspaceID, row.ResourceGroup, row.Name),
		DisableURL: CollectionDisablePath(row.WorkspaceID, row.ResourceGroup, row.Name),
		Badge:      collectionStateBadge(row.State),
		CanEnable:  row.State != models.CollectionEnabled, CanDisable: row.State == models.CollectionEnabled,
		Message: msg, NoteMax: jobdef.MaxStateNote, NoteEdit: NewCollectionNoteEdit(row),
		JobCount: int(jobs), MaxJobs: q.MaxJobCount,
		QuotaText:     fmt.Sprintf("%s of %s jobs", FormatCount(jobs), FormatCount(int64(q.MaxJobCount))),
		MaxRecurrence: "every " + q.MaxRecurrence.String(),
		MaxOccurrence: "unlimited",
	}
	if q.MaxJobOccurrence > 0 {
		st.MaxOccurrence = "at most " + FormatCount(int64(q.MaxJobOccurrence))
	}
	return st
}

// JobListItem is one job of a collection's list with what the list shows
// of it: its definition read back and its next run (none when empty).
type JobListItem struct {
	Job    *models.CollectionJob
	Stored StoredJob
	Next   []time.Time
}

// NewJobList is a page of a collection's jobs, those named after after in
// name order: items holds up to JobListPageSize of them and one more when
// there is a next page.
func NewJobList(row *models.CollectionRow, after string, items []JobListItem, now time.Time) JobList {
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	var l JobList
	if after != "" {
		l.FirstURL = CollectionPath(ws, rg, coll)
	}
	if len(items) > JobListPageSize {
		items = items[:JobListPageSize]
		l.NextURL = CollectionPagePath(ws, rg, coll, items[len(items)-1].Job.Name)
	}
	for _, it := range items {
		j, pj := it.Job, it.Stored
		zone := pj.Zone()
		r := JobRow{
			Name: j.Name, URL: JobPath(ws, rg, coll, j.Name),
			Badge:       jobStateBadge(j.State),
			Description: pj.Describe(ScheduleBase(j.ScheduleBase, j.CreatedAt)),
			Executions:  FormatCount(j.ExecutionCount), Failures: FormatCount(j.FailureCount), Faulted: FormatCount(j.FaultedCount),
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
		l.Rows = append(l.Rows, r)
	}
	return l
}

// noNextNote says briefly why a job has no next run.
func noNextNote(state jobdef.State) string {
	switch state {
	case jobdef.Disabled:
		return jobdef.Disabled.Label()
	case jobdef.Completed:
		return "None (completed)"
	case jobdef.Faulted:
		return "None (faulted)"
	}
	return "None"
}
