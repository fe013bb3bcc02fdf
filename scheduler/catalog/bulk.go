package catalog

import (
	"context"
	"encoding/json"
	"fmt"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
)

// BulkAction is what BulkJobs does to every job of a selection (the "All
// jobs" page and POST /api/v1/jobs/bulk).
type BulkAction string

// The bulk actions (export is ExportJobs: a read).
const (
	BulkEnable  BulkAction = "enable"
	BulkDisable BulkAction = "disable"
	BulkRun     BulkAction = "run"
	BulkDelete  BulkAction = "delete"
)

// MaxBulkJobs is the most jobs one bulk action or export takes.
const MaxBulkJobs = 5000

// BulkOutcome is what a bulk action did to one job.
type BulkOutcome string

// The outcomes of BulkJobs.
const (
	OutcomeEnabled          BulkOutcome = "enabled"
	OutcomeDisabled         BulkOutcome = "disabled"
	OutcomeNoteChanged      BulkOutcome = "noteChanged"
	OutcomeAlreadyEnabled   BulkOutcome = "alreadyEnabled"
	OutcomeAlreadyDisabled  BulkOutcome = "alreadyDisabled"
	OutcomeAlreadyCompleted BulkOutcome = "alreadyCompleted"
	OutcomeAlreadyFaulted   BulkOutcome = "alreadyFaulted"
	OutcomeStarted          BulkOutcome = "started"
	OutcomeNotEnabled       BulkOutcome = "notEnabled"
	OutcomeDeleted          BulkOutcome = "deleted"
)

// BulkItem is one job of a bulk action and what it did to it; Attempt is
// the attempt a run started (0 otherwise).
type BulkItem struct {
	Job     models.BulkJob
	Outcome BulkOutcome
	Attempt int64
}

// BulkResult is the outcome of BulkJobs: one item per job, in the order
// of the selection.
type BulkResult struct {
	Action BulkAction
	Note   string
	Items  []BulkItem
}

// Count is how many jobs had outcome o.
func (r *BulkResult) Count(o BulkOutcome) int {
	n := 0
	for _, it := range r.Items {
		if it.Outcome == o {
			n++
		}
	}
	return n
}

// bulkOps is the Op of each bulk action.
var bulkOps = map[BulkAction]Op{BulkEnable: OpEnableJob, BulkDisable: OpDisableJob, BulkRun: OpRunJob, BulkDelete: OpDeleteJob}

// BulkJobs does action to every job of jobs, for actor, in one
// transaction: enable, disable (with note, SPEC §13.2; only disable takes
// one), run now, or delete. actor needs the action's role (NeedFor of
// its Op) in the workspace of every job: when any workspace refuses (a
// *ForbiddenError), nothing changes. Jobs the action does not apply to are
// left alone and say why (already disabled, completed, not enabled for a
// run). Errors: a *problem.List (no job, too many, an unknown action, a
// bad note), a *ForbiddenError, ErrNoEngine for a run without an engine,
// models.ErrNotFound when a job was deleted meanwhile (nothing changes).
// Every job changed passes changed.
func (c *Catalog) BulkJobs(ctx context.Context, actor Actor, action BulkAction, jobs []models.BulkJob, note string) (*BulkResult, error) {
	op, ok := bulkOps[action]
	if !ok {
		return nil, bulkProblem("action", fmt.Sprintf("%q is not one of enable, disable, run, delete, export", action))
	}
	note, err := CheckStateNote(note)
	if err != nil {
		return nil, err
	}
	if note != "" && action != BulkDisable {
		return nil, bulkProblem("stateNote", "only disable takes a note (enabling clears it)")
	}
	if err := checkSelection(jobs); err != nil {
		return nil, err
	}
	if err := c.allowJobs(ctx, actor, op, jobs); err != nil {
		return nil, err
	}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	res := &BulkResult{Action: action, Note: note, Items: make([]BulkItem, len(jobs))}
	for i, j := range jobs {
		res.Items[i].Job = j
	}
	rec := &record{}
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		if err := tc.bulkApply(ctx, actor, action, ids, note, res); err != nil {
			return err
		}
		for _, it := range res.Items {
			if detail, ok := changeDetail(it, note); ok {
				rec.Parts = append(rec.Parts, record{Change: bulkChange(op, it.Job, detail)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if action == BulkRun {
		c.runner.Wake()
	}
	for _, part := range rec.Parts {
		c.changed(ctx, actor, part.Change)
	}
	return res, nil
}

// bulkApply does action to the jobs ids in c's transaction and fills the
// outcomes of res.Items (in the order of ids).
func (c *Catalog) bulkApply(ctx context.Context, actor Actor, action BulkAction, ids []int64, note string, res *BulkResult) error {
	switch action {
	case BulkEnable, BulkDisable:
		out, err := c.store.SetJobsState(ctx, ids, models.JobStateWrite{Enabled: action == BulkEnable, Note: note, By: actor.UserName, Now: c.now()})
		if err != nil {
			return fmt.Errorf("catalog: bulk %s: %w", action, err)
		}
		for i, r := range out {
			res.Items[i].Outcome = stateOutcome(action, r)
		}
	case BulkRun:
		if c.runner == nil {
			return ErrNoEngine
		}
		out, err := c.store.RunJobsNow(ctx, ids, c.now())
		if err != nil {
			return fmt.Errorf("catalog: bulk run: %w", err)
		}
		for i, r := range out {
			res.Items[i].Outcome, res.Items[i].Attempt = runOutcome(r), r.Attempt
		}
	case BulkDelete:
		if err := c.store.DeleteJobs(ctx, ids); err != nil {
			return fmt.Errorf("catalog: bulk delete: %w", err)
		}
		for i := range res.Items {
			res.Items[i].Outcome = OutcomeDeleted
		}
	}
	return nil
}

// ExportJobs returns the jobs of a selection as an export bundle (the
// import format of ExportWorkspaces, holding only these jobs, each under
// its collection). actor needs the editor role in the workspace of every
// job (SPEC §13.4: export). Errors: a *problem.List (no job, too many), a
// *ForbiddenError, models.ErrNotFound.
func (c *Catalog) ExportJobs(ctx context.Context, actor Actor, jobs []models.BulkJob) (json.RawMessage, error) {
	if err := checkSelection(jobs); err != nil {
		return nil, err
	}
	for _, ws := range workspacesOf(jobs) {
		if err := c.Authorize(ctx, actor, ws, models.RoleEditor); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	stored, err := c.store.JobsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("export jobs: %w", err)
	}
	byID := make(map[int64]*models.Job, len(stored))
	for i := range stored {
		byID[stored[i].ID] = &stored[i]
	}
	colls := []bundledCollection{}
	at := map[int64]int{}
	for _, j := range jobs {
		i, ok := at[j.CollectionID]
		if !ok {
			row, err := c.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: j.WorkspaceID, ResourceGroup: j.ResourceGroup, Name: j.Collection})
			if err != nil {
				return nil, fmt.Errorf("export jobs: %w", err)
			}
			bc, err := exportCollectionHead(row)
			if err != nil {
				return nil, err
			}
			i = len(colls)
			at[j.CollectionID] = i
			colls = append(colls, bc)
		}
		row := &models.CollectionRow{JobCollection: models.JobCollection{ID: j.CollectionID, Name: j.Collection},
			WorkspaceID: j.WorkspaceID, ResourceGroup: j.ResourceGroup}
		ej, err := exportJob(row, byID[j.ID])
		if err != nil {
			return nil, err
		}
		colls[i].Jobs = append(colls[i].Jobs, ej)
	}
	return marshalExport(struct {
		JobCollections []bundledCollection `json:"jobCollections"`
		SecretsOmitted bool                `json:"secretsOmitted"`
		Note           string              `json:"note"`
	}{colls, true, ExportNote})
}

// checkSelection refuses an empty selection and one over MaxBulkJobs.
func checkSelection(jobs []models.BulkJob) error {
	switch {
	case len(jobs) == 0:
		return bulkProblem("jobs", "no job is selected: select jobs, or all jobs that match the filter")
	case len(jobs) > MaxBulkJobs:
		return bulkProblem("jobs", fmt.Sprintf("%d jobs are selected, more than the %d one action takes: narrow the filter", len(jobs), MaxBulkJobs))
	}
	return nil
}

// allowJobs authorizes op in the workspace of every job, before any
// change.
func (c *Catalog) allowJobs(ctx context.Context, actor Actor, op Op, jobs []models.BulkJob) error {
	for _, ws := range workspacesOf(jobs) {
		if err := c.allow(ctx, actor, Change{Op: op, WorkspaceID: ws}); err != nil {
			return err
		}
	}
	return nil
}

// workspacesOf are the workspaces of jobs, each once, in order.
func workspacesOf(jobs []models.BulkJob) []string {
	var out []string
	seen := map[string]bool{}
	for _, j := range jobs {
		if !seen[j.WorkspaceID] {
			seen[j.WorkspaceID] = true
			out = append(out, j.WorkspaceID)
		}
	}
	return out
}

// stateOutcome is the outcome of an enable or disable for one job.
func stateOutcome(action BulkAction, r models.JobStateResult) BulkOutcome {
	switch r.Outcome {
	case models.StateChanged:
		if action == BulkEnable {
			return OutcomeEnabled
		}
		return OutcomeDisabled
	case models.StateNoteChanged:
		return OutcomeNoteChanged
	case models.StateFinished:
		if r.Before == jobdef.Faulted {
			return OutcomeAlreadyFaulted
		}
		return OutcomeAlreadyCompleted
	}
	if action == BulkEnable {
		return OutcomeAlreadyEnabled
	}
	return OutcomeAlreadyDisabled
}

// runOutcome is the outcome of a run now for one job.
func runOutcome(r models.RunNowResult) BulkOutcome {
	switch {
	case r.Attempt > 0:
		return OutcomeStarted
	case r.State == jobdef.Completed:
		return OutcomeAlreadyCompleted
	case r.State == jobdef.Faulted:
		return OutcomeAlreadyFaulted
	}
	return OutcomeNotEnabled
}

// changeDetail is the Detail of the Change an item passes to changed,
// and whether it changed its job at all.
func changeDetail(it BulkItem, note string) (string, bool) {
	switch it.Outcome {
	case OutcomeEnabled, OutcomeDeleted:
		return "", true
	case OutcomeDisabled, OutcomeNoteChanged:
		return note, true
	case OutcomeStarted:
		return fmt.Sprintf("attempt %d", it.Attempt), true
	}
	return "", false
}

// bulkChange is a change of job j.
func bulkChange(op Op, j models.BulkJob, detail string) Change {
	return Change{Op: op, WorkspaceID: j.WorkspaceID, ResourceGroup: j.ResourceGroup, Collection: j.Collection, Job: j.Name, Detail: detail}
}

// bulkProblem is a refusal of a bulk action naming path.
func bulkProblem(path, msg string) error {
	return &problem.List{Problems: []problem.Problem{{Path: path, Message: msg}}}
}
