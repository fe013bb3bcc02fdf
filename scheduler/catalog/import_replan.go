package catalog

import (
	"context"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// replanDue plans again, at the catalog's clock, the jobs of a checked
// import whose first run (planned when each was checked) is already past:
// checking a large file takes a while, and a job is created when the
// import writes it, not when it was checked. Jobs whose first run is still
// ahead keep the schedule base and first run they were checked with (they
// agree with each other). parsed holds each job as checked (nil: not
// written).
func (c *Catalog) replanDue(rep *ImportReport, colls []*importColl, parsed []*jobdef.Job, writes []models.JobWrite) {
	now := c.now().Truncate(time.Microsecond)
	for i := range writes {
		if rj := &rep.Jobs[i]; rj.Action == ActionSkip || !rj.Valid() || colls[i] == nil {
			continue
		}
		replanOverdue(&writes[i], parsed[i], colls[i].cals, now)
	}
}

// replanWritten is replanDue for the jobs of batch once they are written
// (in the import's transaction, on c's store, just before the commit):
// writing many jobs takes a while too, and a first run that passed
// meanwhile would be due (or missed) at the commit, all at once. Each
// such job gets the present as its schedule base and the planner's first
// run for it. jobIndex maps the batch's jobs to parsed and colls.
func (c *Catalog) replanWritten(ctx context.Context, batch models.ImportBatch, res *models.ImportResult, colls []*importColl,
	parsed []*jobdef.Job, jobIndex []int) error {
	now := c.now().Truncate(time.Microsecond)
	var runs []models.FirstRun
	for k, j := range batch.Jobs {
		w := j.Write
		i := jobIndex[k]
		if w.NextRunAt == nil || colls[i] == nil {
			continue
		}
		was, wasNext := w.Now, *w.NextRunAt
		if !replanOverdue(&w, parsed[i], colls[i].cals, now) {
			continue
		}
		runs = append(runs, models.FirstRun{CollectionID: res.CollectionIDs[j.Collection], Name: w.Name, Was: was, WasNext: wasNext,
			Base: w.Now, Next: w.NextRunAt})
	}
	return c.store.SetFirstRuns(ctx, runs)
}

// replanOverdue plans w again at now when its first run is before now:
// now becomes its schedule base and firstRun its first run. It reports
// whether it did.
func replanOverdue(w *models.JobWrite, job *jobdef.Job, cals recurrence.Calendars, now time.Time) bool {
	if job == nil || w.NextRunAt == nil || !w.NextRunAt.Before(now) {
		return false
	}
	rule, err := recurrence.CompileWith(job, now, recurrence.Options{Calendars: cals})
	if err != nil {
		return false // it compiled when checked; the engine decides then
	}
	w.Now, w.NextRunAt = now, firstRun(job, w.State, rule, now)
	return true
}
