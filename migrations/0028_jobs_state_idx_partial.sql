-- 0028_jobs_state_idx_partial: jobs_state_idx (0011) keeps only the jobs
-- that are not enabled.
--
-- The engine's updates of a job's row are not HOT (its next run changes,
-- and it is indexed), so each of them adds an entry to every index whose
-- predicate the row meets: two updates per execution, about 34 index
-- entries in all per execution (BENCHMARKS.md, "Where PostgreSQL's CPU
-- goes"). An index on state serves only the rarer states (disabled,
-- completed, faulted): most jobs are enabled, and a filter on enabled
-- walks the order's own index. Keeping those states alone spares two
-- entries per execution; a filter on any other states (state IN (…)
-- without 'enabled') implies the predicate, so the planner still uses it.
DROP INDEX jobs_state_idx;
CREATE INDEX jobs_state_idx ON jobs (state) WHERE state <> 'enabled';
