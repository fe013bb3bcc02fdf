-- 0014_wake_index: the engine's "next wake-up" query (models.NextWake)
-- and its claim read the earliest due job and pending attempt with their
-- job or collection. The due indexes now carry those columns (INCLUDE), so
-- the scans are index-only wherever the visibility map allows; the jobs
-- waiting to be scheduled get a partial index matching the query's whole
-- WHERE. Jobs and attempts churn (every execution moves a job's next run
-- and finishes an attempt), leaving dead entries at the head of the due
-- indexes: autovacuum now visits both tables after 2 % of their rows
-- changed (default 20 %), so that the head stays short and the visibility
-- map fresh whatever the job count.
--
-- Same keys and predicates as the indexes they replace: the plans of the
-- other queries are unchanged.

DROP INDEX IF EXISTS jobs_due_idx;
CREATE INDEX jobs_due_idx ON jobs (next_run_at) INCLUDE (job_collection_id)
    WHERE state = 'enabled' AND next_run_at IS NOT NULL;

DROP INDEX IF EXISTS job_attempts_pending_idx;
CREATE INDEX job_attempts_pending_idx ON job_attempts (due_at) INCLUDE (job_id)
    WHERE status = 'pending';

CREATE INDEX jobs_needs_schedule_enabled_idx ON jobs (id) WHERE needs_schedule AND state = 'enabled';

ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02,
                      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE job_attempts SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02,
                              autovacuum_analyze_scale_factor = 0.02);
