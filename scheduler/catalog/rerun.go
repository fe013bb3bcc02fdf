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
	rec := &record{Change: jobChange(OpRerunJob, coll, job.Name, detail)}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return 0, err
	}
	by := actor.UserName
	if by == "" {
		by = "someone"
	}
	var id int64
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if id, err = tc.store.Rerun(ctx, job.ID, historyID, by, c.now()); err != nil {
			return fmt.Errorf("catalog: re-run: %w", err)
		}
		rec.Detail = fmt.Sprintf("%s: attempt %d", detail, id)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}
