package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// PutJob creates or replaces the job name in coll from body (either shape
// of SPEC §1). Secrets the body leaves out are kept from the job it
// replaces. It reports whether the job was created. actor makes the
// change. Errors: a *problem.List (400), a *models.QuotaError
// (409).
func (c *Catalog) PutJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, bool, error) {
	return c.putJob(ctx, actor, coll, name, body, savePut)
}

// putJob is PutJob, CreateJob or EditJob as how says.
func (c *Catalog) putJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string, body []byte, how jobSave) (*models.Job, bool, error) {
	rec := &record{Change: jobChange(OpPutJob, coll, name, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, false, err
	}
	p, err := c.prepareJob(ctx, coll, name, body, how)
	if err != nil {
		return nil, false, err
	}
	var j *models.Job
	var created bool
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if j, created, err = tc.saveJob(ctx, p, rec, actor.UserName); err != nil {
			return err
		}
		rec.Job, rec.Detail = j.Name, createdDetail(created)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return j, created, nil
}

// PatchJob merges body (a JSON merge patch of the job, either shape) into
// the stored job name of coll: fields it gives replace the stored ones,
// null removes them ("authentication": null removes the authentication).
// The job must exist. actor makes the change.
func (c *Catalog) PatchJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, error) {
	rec := &record{Change: jobChange(OpPatchJob, coll, name, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	if !json.Valid(body) || !isObject(body) {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "job", Message: "must be a JSON object"}}}
	}
	p, err := c.prepareJob(ctx, coll, name, body, savePatch)
	if err != nil {
		return nil, err
	}
	var j *models.Job
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if j, _, err = tc.saveJob(ctx, p, rec, actor.UserName); err != nil {
			return err
		}
		rec.Job = j.Name
		return nil
	})
	if err != nil {
		return nil, err
	}
	return j, nil
}

// patched returns the body that the merge patch patch (a JSON object,
// either shape) makes of the stored job cur: its definition, state and
// note (a patch that enables the job clears the note: the store keeps
// it only on a disabled job) with what patch gives replaced.
func patched(cur *models.JobToChange, patch []byte) []byte {
	var top map[string]json.RawMessage
	_ = json.Unmarshal(patch, &top)
	for k, v := range top {
		if equalFold(k, "properties") && isObject(v) {
			patch = v
		}
	}
	st, _ := json.Marshal(map[string]string{"state": string(cur.State), "stateNote": cur.StateNote})
	return mergePatch(mergePatch(cur.Definition, st), patch)
}

// jobSave says how saveJob treats the job it may replace.
type jobSave int

const (
	// savePut creates the job or replaces it (PUT).
	savePut jobSave = iota
	// savePatch merges a patch into the job, which must exist (PATCH:
	// ErrNotFound; patched).
	savePatch
	// saveCreate creates the job and never replaces one: a taken name is
	// a problem of jobName (nameTaken).
	saveCreate
	// saveEdit is savePut that keeps the stored state note when the
	// definition carries none (keepStateNote).
	saveEdit
)

// preparedJob is a write of a job prepared by prepareJob, before its
// transaction, from the job it replaces as read without a lock.
type preparedJob struct {
	coll *models.CollectionRow
	name string
	// body is the write's body as given (PATCH: the patch).
	body []byte
	how  jobSave
	// cur is the job the write replaces as read (nil: none), w the write
	// prepared from it.
	cur *models.JobToChange
	w   models.JobWrite
}

// prepareJob prepares the write of the job name of coll from body as how
// says (parsing, calendars, the recurrence, the quota: prepareSave) from
// a plain read of the job it replaces, outside the write's transaction,
// so that the transaction holds its locks (and its slot of the store's
// concurrent writes) only for the locking read and the write (saveJob).
func (c *Catalog) prepareJob(ctx context.Context, coll *models.CollectionRow, name string, body []byte, how jobSave) (*preparedJob, error) {
	if !ValidName(name) {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "jobName",
			Message: fmt.Sprintf("%q is not a job name (a letter or digit, then up to 99 letters, digits, '-' or '_')", name)}}}
	}
	p := &preparedJob{coll: coll, name: name, body: body, how: how}
	var err error
	if p.cur, err = c.jobToChange(ctx, coll, name, false); err != nil {
		return nil, err
	}
	if p.cur != nil && how == saveCreate {
		return nil, nameTaken(name)
	}
	if p.w, err = c.prepareSave(ctx, coll, name, body, how, p.cur); err != nil {
		return nil, err
	}
	return p, nil
}

// saveJob writes the job p prepared, keeping the secrets its body leaves
// out, and fills rec's Before, After and Secrets; by is the writer's name
// (the job's StateChangedBy when its state or note changes). It runs in
// the write's transaction (each try of it).
//
// It locks the job p read and reads it again: only when what the write
// takes from it (its secrets, its note; for a patch, also its definition
// and state) changed meanwhile, or it was deleted, is the write prepared
// again, so that writers of one job queue for its row through the write
// itself, not through the preparation.
func (c *Catalog) saveJob(ctx context.Context, p *preparedJob, rec *record, by string) (*models.Job, bool, error) {
	coll, name, how := p.coll, p.name, p.how
	cur, w := p.cur, p.w
	if cur != nil {
		locked, err := c.jobToChange(ctx, coll, name, true)
		if err != nil {
			return nil, false, err
		}
		if locked == nil || locked.ID != cur.ID || locked.StateNote != cur.StateNote || !maps.Equal(locked.Secrets, cur.Secrets) ||
			how == savePatch && (locked.State != cur.State || !bytes.Equal(locked.Definition, cur.Definition)) {
			if w, err = c.prepareSave(ctx, coll, name, p.body, how, locked); err != nil {
				return nil, false, err
			}
		}
		cur = locked
	}
	if cur == nil && how == savePatch {
		return nil, false, fmt.Errorf("catalog: patch job %q: %w", name, models.ErrNotFound)
	}
	var keep jobdef.Secrets
	if cur != nil {
		// Locked: the store takes no second lock of the job.
		keep, rec.Before, w.Locked = cur.Secrets, cur.Definition, cur
	}
	w.MustExist, w.StateBy = how == savePatch, by
	rec.After, rec.Secrets = w.Definition, changedSecrets(keep, w.Secrets)
	if how != saveCreate {
		return c.store.SaveJob(ctx, w)
	}
	// The name was free when read above; CreateJob decides again in its
	// transaction, where a concurrent creation is seen.
	j, created, err := c.store.CreateJob(ctx, w)
	if err == nil && !created {
		return nil, false, nameTaken(name)
	}
	return j, created, err
}

// jobToChange reads the job name of coll that a write replaces (locked
// or not, Store.ReadJobToChange), or nil when there is none.
func (c *Catalog) jobToChange(ctx context.Context, coll *models.CollectionRow, name string, lock bool) (*models.JobToChange, error) {
	cur, err := c.store.ReadJobToChange(ctx, coll.ID, name, lock)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	return cur, err
}

// prepareSave parses body keeping what it leaves out of cur (its secrets;
// its note for saveEdit; cur nil: nothing to keep; for savePatch, body is
// a patch of cur, which must exist: patched) and prepares the write
// of the job name of coll (Prepare).
func (c *Catalog) prepareSave(ctx context.Context, coll *models.CollectionRow, name string, body []byte, how jobSave, cur *models.JobToChange) (models.JobWrite, error) {
	var keep jobdef.Secrets
	if cur != nil {
		keep = cur.Secrets
	}
	if how == savePatch {
		if cur == nil {
			return models.JobWrite{}, fmt.Errorf("catalog: patch job %q: %w", name, models.ErrNotFound)
		}
		body = patched(cur, body)
	}
	job, err := jobdef.ParseWith(body, jobdef.Options{Keep: keep})
	if err != nil {
		return models.JobWrite{}, err
	}
	if how == saveEdit {
		keepStateNote(job, cur)
	}
	cals, err := c.CalendarsFor(ctx, coll.WorkspaceID, job)
	if err != nil {
		return models.JobWrite{}, err
	}
	return c.Prepare(&coll.JobCollection, name, job, cals)
}

// Prepare checks a parsed job against the collection's quota and turns it
// into the write that stores it: the canonical definition without
// secrets (and without the state note, which has a column of its own),
// the secrets to seal, the state note, and the state (a job whose schedule has
// already ended is stored completed, as the original service did). cals
// are the workspace's calendars (nil when the job excludes none); a job
// excluding a calendar the workspace lacks is refused naming
// recurrence.calendars.exclude[i]. The write carries the job's first run
// as the engine's planner decides it at the catalog's clock (firstRun), so
// that a new job never waits for an engine to schedule it.
func (c *Catalog) Prepare(coll *models.JobCollection, name string, job *jobdef.Job, cals recurrence.Calendars) (models.JobWrite, error) {
	now := c.now().Truncate(time.Microsecond) // as stored: the schedule base the engine reads back
	q := coll.Quota()
	if !q.OutboundAuth && job.Action.UsesAuthentication() {
		return models.JobWrite{}, &models.QuotaError{Quota: "sku", Message: fmt.Sprintf(
			"Collections of sku %s may not use outbound authentication (action.request.authentication): use sku Standard or above.", coll.SKU)}
	}
	if r := job.Recurrence; r != nil && q.MaxJobOccurrence > 0 && r.Count > q.MaxJobOccurrence {
		return models.JobWrite{}, &models.QuotaError{Quota: "maxJobOccurrence", Message: fmt.Sprintf(
			"recurrence.count %d is over the collection's quota maxJobOccurrence of %d.", r.Count, q.MaxJobOccurrence)}
	}
	rule, err := recurrence.CompileWith(job, now, recurrence.Options{Calendars: cals})
	if ve := problem.As(err); ve != nil {
		return models.JobWrite{}, ve
	}
	if err != nil {
		return models.JobWrite{}, &problem.List{Problems: []problem.Problem{{Path: "recurrence", Message: err.Error()}}}
	}
	if err := rule.CheckWindow(now); err != nil {
		return models.JobWrite{}, err
	}
	if job.Recurrence != nil {
		if gap, ok := rule.MinGap(now); ok && gap < q.MaxRecurrence.Shortest() {
			return models.JobWrite{}, &models.QuotaError{Quota: "maxRecurrence", Message: fmt.Sprintf(
				"The job runs as often as every %s, more often than the collection's quota maxRecurrence allows (every %s at most).",
				formatGap(gap), q.MaxRecurrence)}
		}
	}
	state := job.State
	// Occurrences are whole seconds: a job without startTime runs at the
	// second of its creation, which may be before now (as the planner
	// looks, plan.Decide).
	if _, ok := rule.Next(now.Add(-time.Second)); !ok && job.State == jobdef.Enabled && job.Trigger == nil {
		state = jobdef.Completed
	}
	def := *job
	def.StateNote = ""
	var next *time.Time
	if job.Recurrence == nil || job.Recurrence.Window == 0 {
		// The offsets of a spread window derive from the job's id, which
		// a job not stored yet lacks: an engine plans such a job (the
		// write's NOTIFY wakes it at once).
		next = firstRun(job, state, rule, now)
	}
	return models.JobWrite{
		CollectionID: coll.ID,
		Name:         name,
		Definition:   def.MarshalProperties(jobdef.MarshalOptions{}),
		StateNote:    job.StateNote,
		Secrets:      job.Secrets(),
		State:        state,
		MaxJobs:      q.MaxJobCount,
		Now:          now,
		NextRunAt:    next,
	}, nil
}

// DeleteJob deletes the job name of coll with its history, for actor.
func (c *Catalog) DeleteJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string) error {
	rec := &record{Change: jobChange(OpDeleteJob, coll, name, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		d, err := tc.store.DeleteJobNamed(ctx, coll.ID, name)
		if err != nil {
			return err
		}
		rec.Job, rec.Before = d.Name, d.Definition
		return nil
	})
}

// jobChange is a change of the job name of coll.
func jobChange(op Op, coll *models.CollectionRow, name, detail string) Change {
	return Change{Op: op, WorkspaceID: coll.WorkspaceID, ResourceGroup: coll.ResourceGroup, Collection: coll.Name, Job: name, Detail: detail}
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

// firstRun returns the first run of a job the catalog writes in state at
// now with rule (its recurrence compiled for now, the job's schedule
// base): what the engine's planner (plan.Decide for a job to schedule)
// would store when it first saw the job, so that the write stores it and
// no engine has to schedule the job. It returns nil when the job is not
// enabled or the planner has no next run for it (the job ends: the
// engine decides that, with its own audit entry).
func firstRun(job *jobdef.Job, state jobdef.State, rule *recurrence.Rule, now time.Time) *time.Time {
	if state != jobdef.Enabled {
		return nil
	}
	compile := func(time.Time) (plan.Rule, error) { return rule, nil }
	d, err := plan.Decide(plan.State{Status: state, ScheduleBase: &now, NeedsSchedule: true},
		plan.Policy{Misfire: job.MisfirePolicy, Concurrency: job.Concurrency}, compile, now)
	if err != nil || d.Next == nil || d.End != "" || d.Rebase != nil {
		return nil
	}
	return d.Next
}
