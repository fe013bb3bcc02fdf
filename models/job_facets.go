package models

// A job's facets (migration 0025): what the "All jobs" page and the
// calendars derive from the job's name, definition and state note — the
// search text, the recurrence's time zone and the names of the calendars
// it excludes — kept in job_facets, one row per job, off the engine's hot
// path: the engine rewrites jobs rows twice per execution and never
// changes these three, so it never touches job_facets.
//
// The expressions live in the function job_facets_of (migration 0034),
// which the view job_facets_derived and upsertJobs's statement use.
// Every statement that inserts jobs or changes a job's name, definition or
// state note is followed, in its transaction, by refreshJobFacets for the
// jobs it wrote (upsertJobs, the one statement of SaveJob, SaveJobs and
// imports; SetJobsState);
// jobs are deleted with their facets (ON DELETE CASCADE).
// TestJobFacetsFollowEveryWriter checks every row against the view.

import (
	"fmt"

	"gorm.io/gorm"
)

// refreshJobFacets recomputes the job_facets rows of the jobs ids from
// job_facets_derived (inserted or replaced; an id that is not a job is
// ignored). Call it in the write's transaction after its last change of
// the jobs' names, definitions or state notes.
func refreshJobFacets(tx *gorm.DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := tx.Exec(`INSERT INTO job_facets (job_id, search, time_zone, calendar_excludes)
		SELECT d.job_id, d.search, d.time_zone, d.calendar_excludes FROM job_facets_derived d
		WHERE d.job_id IN ? ORDER BY d.job_id
		ON CONFLICT (job_id) DO UPDATE
		SET search = excluded.search, time_zone = excluded.time_zone, calendar_excludes = excluded.calendar_excludes
		WHERE (job_facets.search, job_facets.time_zone, job_facets.calendar_excludes)
		      IS DISTINCT FROM (excluded.search, excluded.time_zone, excluded.calendar_excludes)`,
		ids).Error
	if err != nil {
		return fmt.Errorf("refresh job facets: %w", err)
	}
	return nil
}
