-- 0024_last_failed: the "All jobs" page's "failed in the last 24 h"
-- filter. Looking for a recent Failed entry in job_history cost a probe
-- per job walked; the start time of the job's newest Failed entry is now
-- kept on the job by every history write (models/rollups.go:
-- lastFailedSet, beside lastStatusSet) and indexed. History retention
-- does not clear it: the filter only asks whether the job failed in the
-- last 24 hours, and it did even when retention has deleted the entry.
ALTER TABLE jobs ADD COLUMN last_failed_at timestamptz;

UPDATE jobs j SET last_failed_at = h.start_time
FROM (SELECT job_id, max(start_time) AS start_time
      FROM job_history
      WHERE status = 'Failed'
      GROUP BY job_id) h
WHERE h.job_id = j.id;

-- The filter is a range "last_failed_at >= now - 24 h". When it keeps
-- few jobs they are read through this index and sorted; when it keeps
-- many, the page's order is walked on its own index (jobs_next_id_idx and
-- the others of migration 0011) and the column checked on each row. Jobs
-- that never failed are not in it.
CREATE INDEX jobs_last_failed_idx ON jobs (last_failed_at) WHERE last_failed_at IS NOT NULL;

-- The planner needs the new column's statistics to choose between the two.
ANALYZE jobs;
