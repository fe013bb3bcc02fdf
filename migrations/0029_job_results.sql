-- 0029_job_results: a job's results move to a narrow table of their own,
-- off the wide row the engine locks and the pages sort.
--
-- The engine recorded every result by rewriting the job's row in jobs: a
-- copy of its definition, its name and its notes (about 700 bytes), and,
-- because the last result and the failures are indexed for the "All
-- jobs" page, an entry in each of the table's nine indexes. job_results
-- holds the columns a result changes, with the three indexes the page's
-- filters and sort need: a result writes about 90 bytes and, when the
-- last result and the failures do not change (a repeating job that keeps
-- succeeding), no index entry at all (a HOT update: the fillfactor keeps
-- room on each page for the new version). Measured with
-- BenchmarkFinishAttemptsServerCPU (models): see BENCHMARKS.md.
--
-- Every job has its row: the store inserts it with the job (ensureJobResults,
-- in the same transaction), the engine's writes insert it when it is missing
-- (jobs stored by other means), and jobs_with_results reads a job with its
-- results.
CREATE TABLE job_results (
    job_id                  bigint      PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    -- Attempts recorded, of which failed; main actions that faulted.
    execution_count         bigint      NOT NULL DEFAULT 0 CHECK (execution_count >= 0),
    failure_count           bigint      NOT NULL DEFAULT 0 CHECK (failure_count >= 0),
    faulted_count           bigint      NOT NULL DEFAULT 0 CHECK (faulted_count >= 0),
    -- Faulted occurrences in a row (0017), whether the last ended
    -- occurrence faulted (0002).
    consecutive_faults      integer     NOT NULL DEFAULT 0 CHECK (consecutive_faults >= 0),
    last_occurrence_faulted boolean     NOT NULL DEFAULT false,
    -- The status and start of the newest history entry (0023), the start
    -- of the newest Failed one (0024).
    last_status             text        CHECK (last_status IN ('Completed', 'Failed', 'Postponed')),
    last_status_at          timestamptz,
    last_failed_at          timestamptz
) WITH (fillfactor = 50);

INSERT INTO job_results (job_id, execution_count, failure_count, faulted_count, consecutive_faults,
                         last_occurrence_faulted, last_status, last_status_at, last_failed_at)
SELECT id, execution_count, failure_count, faulted_count, consecutive_faults,
       last_occurrence_faulted, last_status, last_status_at, last_failed_at
FROM jobs;

-- The "All jobs" page: most failures first, the last result filter, the
-- recent failure filter (as 0011, 0023 and 0024 on jobs).
CREATE INDEX job_results_failures_idx ON job_results (failure_count, job_id);
CREATE INDEX job_results_last_status_idx ON job_results (last_status, job_id);
CREATE INDEX job_results_last_failed_idx ON job_results (last_failed_at) WHERE last_failed_at IS NOT NULL;

-- Their indexes on jobs (jobs_failures_id_idx, jobs_last_status_next_idx,
-- jobs_last_failed_idx) go with the columns.
ALTER TABLE jobs
    DROP COLUMN execution_count,
    DROP COLUMN failure_count,
    DROP COLUMN faulted_count,
    DROP COLUMN consecutive_faults,
    DROP COLUMN last_occurrence_faulted,
    DROP COLUMN last_status,
    DROP COLUMN last_status_at,
    DROP COLUMN last_failed_at;

-- A job with its results, for the reads that show or filter them (the
-- store's Job reads, the "All jobs" page). A left join, which the planner
-- removes from a query that reads none of the results. id is the job's;
-- result_id the same value from job_results, for the orders and keysets
-- that walk job_results' own indexes (a row comparison names the index's
-- column; "result_id IS NOT NULL" lets the walk drive the join). A later
-- column of jobs is added here by CREATE OR REPLACE VIEW in the migration
-- that adds it.
CREATE VIEW jobs_with_results AS
SELECT j.*, r.job_id AS result_id, r.execution_count, r.failure_count, r.faulted_count, r.consecutive_faults,
       r.last_occurrence_faulted, r.last_status, r.last_status_at, r.last_failed_at
FROM jobs j
LEFT JOIN job_results r ON r.job_id = j.id;

ANALYZE job_results;
ANALYZE jobs;
