package engine

import (
	"context"
	"fmt"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// describeJob returns the plain-English schedule of job id as the pages
// show it ("At 05:15, every day"), for an event's jobInfo.description:
// from its stored definition, schedule base (or creation) and calendars.
func (o *outbox) describeJob(ctx context.Context, id int64) (string, error) {
	j, err := o.store.JobByID(ctx, id)
	if err != nil {
		return "", err
	}
	job, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return "", fmt.Errorf("engine: describe job %d: %w", id, err)
	}
	base := j.CreatedAt
	if j.ScheduleBase != nil {
		base = *j.ScheduleBase
	}
	var opts recurrence.Options
	if job.ExcludesCalendars() && o.cfg.Calendars != nil {
		if opts.Calendars, _, err = o.cfg.Calendars.CollectionCalendars(ctx, j.JobCollectionID); err != nil {
			return "", fmt.Errorf("engine: describe job %d: %w", id, err)
		}
	}
	rule, err := recurrence.CompileWith(job, base, opts)
	if err != nil {
		return "", fmt.Errorf("engine: describe job %d: %w", id, err)
	}
	return rule.Description(), nil
}
