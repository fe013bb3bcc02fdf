package catalog

import (
	"context"
	"fmt"

	"sked/models"
)

// Rerun re-runs, for actor, the failed occurrence of history entry
// historyID of job of coll: a new attempt of that occurrence (same
// expected time and Idempotency-Key), due at once, which follows the
// job's retry policy afresh and is recorded as a re-run of the entry by
// the actor (see models.Store.Rerun; the database wakes the engines). It
// needs the operator role and returns the new attempt's id. A succeeded,
// postponed or still open occurrence is refused with a
// *models.ConflictError saying why; other errors wrap models.ErrNotFound,
// models.ErrJobNotEnabled or models.ErrJobFinished.
func (c *Catalog) Rerun(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, historyID int64) (int64, error) {
	detail := fmt.Sprintf("entry %d", historyID)
	if err := c.allow(ctx, actor, jobChange(OpRerunJob, coll, job.Name, detail)); err != nil {
		return 0, err
	}
	by := actor.UserName
	if by == "" {
		by = "someone"
	}
	id, err := c.store.Rerun(ctx, job.ID, historyID, by, c.now())
	if err != nil {
		return 0, fmt.Errorf("catalog: re-run: %w", err)
	}
	c.changed(ctx, actor, jobChange(OpRerunJob, coll, job.Name, fmt.Sprintf("%s: attempt %d", detail, id)))
	return id, nil
}
