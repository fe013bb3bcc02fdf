package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
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
	rec := &record{Change: jobChange(OpRunJob, coll, job.Name, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return 0, err
	}
	if c.runner == nil {
		return 0, ErrNoEngine
	}
	var id int64
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if id, err = tc.store.RunNow(ctx, job.ID, c.now()); err != nil {
			return fmt.Errorf("catalog: run now: %w", err)
		}
		rec.Detail = "attempt " + strconv.FormatInt(id, 10)
		return nil
	})
	if err != nil {
		return 0, err
	}
	c.runner.Wake()
	return id, nil
}
