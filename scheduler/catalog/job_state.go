package catalog

import (
	"context"
	"fmt"
	"strconv"

	"sked/models"
)

// EnableJob enables job of coll, for actor: it is scheduled from now
// (occurrences missed while it was disabled are not run); the database
// wakes the engines. Enabling an enabled job changes nothing. Errors wrap
// models.ErrNotFound or models.ErrJobFinished (a completed or faulted
// job).
func (c *Catalog) EnableJob(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) error {
	return c.setJobEnabled(ctx, actor, coll, job, true)
}

// DisableJob disables job of coll, for actor: nothing of it runs any
// more; an attempt already running finishes and is recorded, without
// retry. Errors are those of EnableJob.
func (c *Catalog) DisableJob(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) error {
	return c.setJobEnabled(ctx, actor, coll, job, false)
}

// setJobEnabled enables or disables a job and reports the change.
func (c *Catalog) setJobEnabled(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, enabled bool) error {
	op := OpDisableJob
	if enabled {
		op = OpEnableJob
	}
	if err := c.allow(ctx, actor, jobChange(op, coll, job.Name, "")); err != nil {
		return err
	}
	if err := c.store.SetJobEnabled(ctx, job.ID, enabled, c.now()); err != nil {
		return err
	}
	c.changed(ctx, actor, jobChange(op, coll, job.Name, ""))
	return nil
}

// RunNow starts an extra occurrence of job of coll at once, for actor,
// through the engine (see (*scheduler.Engine).RunNow), and returns its
// attempt id. Errors: ErrNoEngine without a Runner, errors wrapping
// models.ErrNotFound, models.ErrJobNotEnabled or models.ErrJobFinished.
func (c *Catalog) RunNow(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job) (int64, error) {
	if err := c.allow(ctx, actor, jobChange(OpRunJob, coll, job.Name, "")); err != nil {
		return 0, err
	}
	if c.runner == nil {
		return 0, ErrNoEngine
	}
	id, err := c.runner.RunNow(ctx, job.ID)
	if err != nil {
		return 0, fmt.Errorf("catalog: run now: %w", err)
	}
	c.changed(ctx, actor, jobChange(OpRunJob, coll, job.Name, "attempt "+strconv.FormatInt(id, 10)))
	return id, nil
}
