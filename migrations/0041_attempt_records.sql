-- 0041_attempt_records: an attempt started from the schedule is one row of
-- job_history from its start on (status 'Running', with the lease that
-- job_attempts rows hold), which its end updates into the finished entry,
-- instead of a job_attempts row inserted by the claim and deleted by the
-- finish, which inserted the history entry (PostgreSQL CPU per execution,
-- SPEC §18). Pending attempts (retries, error actions, run now, re-runs,
-- backfills, attempts held for a target limit) stay in job_attempts.
--
-- Expand only. The previous release claims into job_attempts and finishes
-- by inserting history; this release writes 'Running' rows only while no
-- live instance of an older release remains (engine_instances.schema_version
-- below 41, read by every heartbeat), so the previous release never reads
-- one: its history reads, counts and deletes know three statuses.
--
-- Every reader of the history leaves 'Running' rows out (they are not
-- entries yet: Azure's history has no such status); history_hours and
-- job_results count an entry when it ends.
DO $$
DECLARE
    def  text;
    vals text[];
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'job_history'::regclass AND conname = 'job_history_status_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT m[1] AS v FROM regexp_matches(def, '''([^'']+)''::text', 'g') AS m
        UNION SELECT 'Running') AS t;
    ALTER TABLE job_history DROP CONSTRAINT job_history_status_check;
    -- NOT VALID: the rows stored passed the narrower check, so they pass
    -- this one; validating would read the whole history under the lock.
    EXECUTE format('ALTER TABLE job_history ADD CONSTRAINT job_history_status_check CHECK (status IN (%s)) NOT VALID',
        (SELECT string_agg(quote_literal(v), ', ') FROM unnest(vals) AS v));
END $$;

-- The lease of a running attempt (its engine and, by the database's clock,
-- when another may take it over) and its due time (spread window included,
-- the lateness's origin; the details' due_at). Kept on the finished entry.
ALTER TABLE job_history
    ADD COLUMN lease_owner text,
    ADD COLUMN lease_expires_at timestamptz,
    ADD COLUMN due_at timestamptz;

-- Expired leases and an instance's attempts are found among the running
-- rows only (few); a finished entry leaves this index. Its build reads the
-- history once (writes of the history wait for it: about a second per
-- million entries).
CREATE INDEX job_history_running_idx ON job_history (lease_expires_at) WHERE status = 'Running';

-- The end of a record updates its row (status is indexed: not a HOT
-- update), while the claims insert the next ones. With full pages the new
-- version goes to another page, at the table's end where the claims
-- insert: claims and finishes then wait for each other (measured at
-- 2,000 executions/s: the engine fell behind, half the statements' time
-- waiting). With half of each page left free, the end's version stays on
-- its row's page. It applies to pages written from now on.
ALTER TABLE job_history SET (fillfactor = 50);
