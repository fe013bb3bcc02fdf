package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/action"
)

// EnableJob enables job of coll, for actor: it is scheduled from now
// (occurrences missed while it was disabled are not run); the database
// wakes the engines. Enabling an enabled job changes nothing. Errors wrap
// models.ErrNotFound or models.ErrJobFinished (a completed or faulted
// job).
func (c *Catalog) EnableJob(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) error {
	return c.setJobEnabled(ctx, actor, coll, job, true, "")
}

// DisableJob disables job of coll, for actor: nothing of it runs any
// more; an attempt already running finishes and is recorded, without
// retry. A note it had is cleared (DisableJobNote keeps one). Errors are
// those of EnableJob.
func (c *Catalog) DisableJob(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) error {
	return c.setJobEnabled(ctx, actor, coll, job, false, "")
}

// DisableJobNote is DisableJob with a note saying why (SPEC §13.2,
// trimmed; "" for none): the job keeps it, with actor's name and the time,
// until it is enabled. Disabling a disabled job changes its note. A note
// over jobdef.MaxStateNote characters or with control characters is a
// *problem.List naming stateNote, and nothing changes.
func (c *Catalog) DisableJobNote(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, note string) error {
	return c.setJobEnabled(ctx, actor, coll, job, false, note)
}

// setJobEnabled enables or disables a job (with note) and reports the
// change.
func (c *Catalog) setJobEnabled(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, enabled bool, note string) error {
	op := OpDisableJob
	if enabled {
		op = OpEnableJob
	}
	note, err := CheckStateNote(note)
	if err != nil {
		return err
	}
	rec := &record{Change: jobChange(op, coll, job.Name, note)}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	state := jobdef.Disabled
	if enabled {
		state = jobdef.Enabled
	}
	rec.Before, rec.After = stateJSON(string(job.State)), stateJSON(string(state))
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		_, err := tc.store.SetJobState(ctx, job.ID, models.JobStateWrite{Enabled: enabled, Note: note, By: actor.UserName, Now: c.now()})
		return err
	})
}

// CheckStateNote trims note and checks it as a job's state note
// (jobdef.CheckStateNote): a refusal is a *problem.List naming stateNote.
func CheckStateNote(note string) (string, error) {
	note = strings.TrimSpace(note)
	if msg := jobdef.CheckStateNote(note); msg != "" {
		return "", &problem.List{Problems: []problem.Problem{{Path: "stateNote", Message: msg, Label: "Note"}}}
	}
	return note, nil
}

// RunNow starts an extra occurrence of job of coll at once, for actor:
// the attempt is queued (store.RunNow, which notifies every engine on
// commit) in the transaction of its audit entry, then this process's
// engine is woken; it returns the attempt id. Errors: ErrNoEngine without
// a Runner (no engine runs here), errors wrapping models.ErrNotFound,
// models.ErrJobNotEnabled or models.ErrJobFinished.
func (c *Catalog) RunNow(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) (int64, error) {
	return c.RunNowWith(ctx, actor, coll, job, nil)
}

// RunNowWith is RunNow with changes of the request for this one run (SPEC
// §16.4; nil or empty: RunNow): the changes need the editor role (a run
// as defined needs an operator), apply to the main action of an http or
// https job only (a *problem.List naming request otherwise, or naming the
// header the merged headers put over the limits), and are recorded, with
// secret header values masked, in the audit entry (its difference, under
// request.headers and request.body) and the run's history entries. The
// attempt and its retries carry them; the job's definition is unchanged.
func (c *Catalog) RunNowWith(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, changes *jobdef.RunChanges) (int64, error) {
	op := OpRunJob
	if !changes.Empty() {
		op = OpRunJobChanges
	}
	rec := &record{Change: jobChange(op, coll, job.Name, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return 0, err
	}
	var ch models.RunChanges
	if !changes.Empty() {
		def, err := jobdef.ParseWith(job.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
		if err != nil {
			return 0, fmt.Errorf("catalog: run now: %w", err)
		}
		if err := jobdef.CheckRunChanges(def, changes); err != nil {
			return 0, err
		}
		ch = models.RunChanges{Apply: jobdef.MarshalRunChanges(changes, nil),
			Shown: jobdef.MarshalRunChanges(changes, action.MaskHeader)}
		rec.After = ch.Shown
	}
	if c.runner == nil {
		return 0, ErrNoEngine
	}
	var id int64
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if id, err = tc.store.RunNowWith(ctx, job.ID, c.now(), ch); err != nil {
			return fmt.Errorf("catalog: run now: %w", err)
		}
		rec.Detail = "attempt " + strconv.FormatInt(id, 10)
		if !changes.Empty() {
			rec.Detail += ", with changes"
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	c.runner.Wake()
	return id, nil
}
