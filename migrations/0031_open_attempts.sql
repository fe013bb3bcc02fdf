-- 0031_open_attempts: job_attempts holds the open attempts only (pending
-- and running). The engine deletes an attempt in the statement that
-- writes its history entry, instead of updating it to succeeded or
-- failed and deleting it a day later (retention): an execution writes one
-- attempt row, not two versions of it, and two to three index entries
-- fewer (issue 11, PostgreSQL CPU per execution).
--
-- What the finished rows served moves elsewhere:
-- * An occurrence that already ran is not started again. The unique key
--   of job_attempts refused a second start while the finished attempt
--   was kept (a day); now the claim compares a planned run with the job's
--   last_expected_at, the expected time of the last occurrence its
--   schedule started (written by the claim that starts it, in the jobs
--   row it updates anyway), for as long as the job exists. An open
--   attempt still meets the unique key.
-- * The numbering of a re-run's attempts and the refusal to re-run an
--   occurrence that succeeded read the occurrence's history entries (an
--   entry per finished attempt, with its attempt_id).
ALTER TABLE jobs ADD COLUMN last_expected_at timestamptz;
UPDATE jobs j SET last_expected_at = a.last
FROM (SELECT job_id, max(expected_time) AS last FROM job_attempts
      WHERE action = 'MainAction' AND rerun_of IS NULL GROUP BY job_id) a
WHERE a.job_id = j.id;
DELETE FROM job_attempts WHERE status IN ('succeeded', 'failed');
DROP INDEX job_attempts_finished_brin;
-- Every row is open now: the unique key (job_id first) finds a job's open
-- attempts.
DROP INDEX job_attempts_open_idx;
ALTER TABLE job_attempts
    DROP COLUMN finished_at,
    DROP CONSTRAINT job_attempts_status_check,
    ADD CONSTRAINT job_attempts_status_check CHECK (status IN ('pending', 'running'));
