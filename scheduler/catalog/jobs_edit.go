package catalog

import (
	"context"

	"sked/models"
	"sked/models/jobdef"
)

// EditJob is PutJob for an editor that does not show the state note (the
// job form's builder): a definition without a note keeps the one of the
// job it replaces (keepStateNote), so that editing a paused job keeps why
// it is paused. It reports whether the job was created (it was deleted
// meanwhile). actor makes the change.
func (c *Catalog) EditJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, bool, error) {
	return c.putJob(ctx, actor, coll, name, body, saveEdit)
}

// keepStateNote gives job the state note of cur, the stored job it
// replaces (nil: none), when job's definition does not name stateNote
// (SPEC §13.2); an explicit "" clears it. The store
// keeps a note only on a disabled job: a definition that enables the job
// still clears it.
func keepStateNote(job *jobdef.Job, cur *models.JobToChange) {
	if cur != nil && !job.StateNoteGiven {
		job.StateNote = cur.StateNote
	}
}
