package models

// A job's results (migration 0029): its counters (executions, failures,
// faults), its faulted occurrences in a row, whether its last ended
// occurrence faulted, its last result and its last failure, kept in
// job_results, one narrow row per job, apart from the wide jobs row: the
// engine records every result there (FinishAttempts, the postponed entries
// of a claim) without rewriting the job's definition or adding entries to
// jobs' indexes.
//
// Every statement that inserts jobs is followed, in its transaction, by
// ensureJobResults for the jobs it wrote (upsertJobs, the one statement
// of SaveJob, SaveJobs and imports); jobs are deleted with their results (ON DELETE CASCADE). The
// reads that show results go through the view jobs_with_results (a job
// joined to its results; Job's table).
//
// A writer of a job's results holds the job's row lock (FOR UPDATE of
// jobs, as the engine's claim and FinishAttempts take it) and locks the
// results row it reads before writing it, so that the faulted
// occurrences in a row it counts from are the current ones.

import (
	"fmt"

	"gorm.io/gorm"
)

// ensureJobResults inserts the missing job_results rows of the jobs ids
// (zero counters, no last result); rows that exist are left as they are.
// Call it in the transaction that inserts the jobs.
func ensureJobResults(tx *gorm.DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := tx.Exec(`INSERT INTO job_results (job_id)
		SELECT j.id FROM jobs j WHERE j.id IN ? ORDER BY j.id
		ON CONFLICT (job_id) DO NOTHING`, ids).Error
	if err != nil {
		return fmt.Errorf("ensure job results: %w", err)
	}
	return nil
}

// lastOccurrenceFaultedOf is the SQL of whether the last ended occurrence
// of the job j faulted (its job_results row; false without one), for the
// engine's statements on jobs j.
const lastOccurrenceFaultedOf = `coalesce((SELECT r.last_occurrence_faulted FROM job_results r WHERE r.job_id = j.id), false)`
