package catalog

import (
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// replanDue plans again, at the catalog's clock now, the jobs of a checked
// import whose first run (planned when each was checked) is already past:
// checking a large file takes a while, and a job is created when the
// import writes it, not when it was checked. Those jobs get now as their
// schedule base and the planner's first run for it (firstRun), so that a
// job to run at once runs at once instead of as late as the check took,
// or missed. Jobs whose first run is still ahead keep the schedule base
// and first run they were checked with (they agree with each other).
// parsed holds each job as checked (nil: not written).
func (c *Catalog) replanDue(rep *ImportReport, colls []*importColl, parsed []*jobdef.Job, writes []models.JobWrite) {
	now := c.now().Truncate(time.Microsecond)
	for i := range writes {
		w := &writes[i]
		if parsed[i] == nil || colls[i] == nil || w.NextRunAt == nil || !w.NextRunAt.Before(now) {
			continue
		}
		if rj := &rep.Jobs[i]; rj.Action == ActionSkip || !rj.Valid() {
			continue
		}
		rule, err := recurrence.CompileWith(parsed[i], now, recurrence.Options{Calendars: colls[i].cals})
		if err != nil {
			continue // it compiled when checked; the engine decides then
		}
		w.Now, w.NextRunAt = now, firstRun(parsed[i], w.State, rule, now)
	}
}
