package models

// A job's results (migration 0029): its counters (executions, failures,
// faults), its faulted occurrences in a row, whether its last ended
// occurrence faulted, its last result and its last failure, kept in
// job_results, one narrow row per job, apart from the wide jobs row: the
// engine records every result there (FinishAttempts, the postponed entries
// of a claim) without rewriting the job's definition or adding entries to
// jobs' indexes.
//
// Jobs are inserted by upsertJobs only (SaveJob, SaveJobs and imports),
// whose statement inserts the results rows of the jobs it inserts; jobs
// are deleted with their results (ON DELETE CASCADE). The
// reads that show results go through the view jobs_with_results (a job
// joined to its results; Job's table).
//
// A writer of a job's results holds the job's row lock (FOR UPDATE of
// jobs, as the engine's claim and FinishAttempts take it) and locks the
// results row it reads before writing it, so that the faulted
// occurrences in a row it counts from are the current ones.

// lastOccurrenceFaultedOf is the SQL of whether the last ended occurrence
// of the job j faulted (its job_results row; false without one), for the
// engine's statements on jobs j.
const lastOccurrenceFaultedOf = `coalesce((SELECT r.last_occurrence_faulted FROM job_results r WHERE r.job_id = j.id), false)`
