-- 0023_last_status: the "All jobs" page filters by a job's last result.
-- Looking up each job's newest history entry cost a probe per job (the
-- filter had to stop after 2,000 jobs); the status and start time of the
-- newest entry are now kept on the job by every history write
-- (models/rollups.go: lastStatusSet) and indexed. A job whose history
-- retention deleted keeps its last result.
ALTER TABLE jobs
    ADD COLUMN last_status    text CHECK (last_status IN ('Completed', 'Failed', 'Postponed')),
    ADD COLUMN last_status_at timestamptz;

UPDATE jobs j SET last_status = h.status, last_status_at = h.start_time
FROM (SELECT DISTINCT ON (job_id) job_id, status, start_time
      FROM job_history
      ORDER BY job_id, start_time DESC, id DESC) h
WHERE h.job_id = j.id;

-- The filter, then the default order (next run) within it; the other
-- orders walk their own index and check last_status on the row.
CREATE INDEX jobs_last_status_next_idx ON jobs (last_status, (coalesce(next_run_at, 'infinity'::timestamptz)), id);
