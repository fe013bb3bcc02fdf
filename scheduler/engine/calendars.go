package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sked/models"
	"sked/scheduler/recurrence"
)

// CalendarSource gives the compiled calendars of the workspace that holds a
// job collection, with a stamp that changes whenever one of them does
// (catalog.Catalog implements it). It must be safe for concurrent use.
type CalendarSource interface {
	CollectionCalendars(ctx context.Context, collectionID int64) (recurrence.Calendars, string, error)
}

// calendarLookupTimeout bounds one look-up of a workspace's calendars.
const calendarLookupTimeout = 5 * time.Second

// jobCalendars returns the calendars job j needs: none (and no query) when
// its definition excludes none.
func (e *Engine) jobCalendars(j *models.EngineJob) (jobCalendars, error) {
	cj, err := e.cache.get(j.ID, j.Definition, j.Secrets, nil, jobCalendars{})
	if err != nil {
		return jobCalendars{}, err
	}
	if !cj.job.ExcludesCalendars() {
		return jobCalendars{}, nil
	}
	if e.calendars == nil {
		return jobCalendars{}, errors.New("engine: the job excludes calendars, but the engine has no calendar source")
	}
	ctx, cancel := context.WithTimeout(context.Background(), calendarLookupTimeout)
	defer cancel()
	cals, stamp, err := e.calendars.CollectionCalendars(ctx, j.JobCollectionID)
	if err != nil {
		return jobCalendars{}, fmt.Errorf("engine: calendars of job %d: %w", j.ID, err)
	}
	return jobCalendars{cals: cals, stamp: stamp}, nil
}
