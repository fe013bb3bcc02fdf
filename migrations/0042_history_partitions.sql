-- 0042_history_partitions: the history (job_history) and its details
-- (job_history_details) become tables partitioned by day on the entry's
-- start time (SPEC §18), so that retention by age drops a day's partition
-- at once instead of deleting its entries row by row (and leaving the
-- vacuum to clean up after them).
--
-- Partitions, both tables alike (UTC days):
--   <table>_until_YYYYMMDD  the history stored before this migration, from
--                           MINVALUE to the day after the newest entry's
--                           day (or after today): the old tables, renamed
--                           and attached as they are (no row moves);
--   <table>_YYYYMMDD        one day, [YYYY-MM-DD, +1 day), created ahead
--                           by the engines (models/history_partitions.go),
--                           the first seven by this migration;
--   <table>_default         whatever no day's partition holds (an entry
--                           started beyond the days created ahead).
--
-- Expand only: the previous release keeps reading and writing
-- job_history and job_history_details by their names, with the same
-- columns; its INSERTs leave the new details column start_time out
-- (default now(): its details land in the day they were written). What
-- changes for it: a unique key on a partitioned table must hold the
-- partition key, so history ids are unique with their start time (the
-- sequence still hands out each id once), and the details' foreign key to
-- the history is gone (a key referencing a partitioned table would make
-- dropping a day's partition scan the details): this release deletes the
-- details of the entries it deletes (deleteHistory, deleteJobsSQL), and
-- what the previous release leaves behind is dropped with its partition.
--
-- The work is proportional to the stored history: two index builds (the
-- history's (id, start_time), the details' (history_id, start_time)) and
-- three reads (the newest start, the status CHECK, the partition bounds)
-- under the lock; about 3 s for 1,000,000 entries with their details
-- (TestHistoryPartitionsMigrateStoredHistory).
DO $$
DECLARE
    cut   timestamptz;
    day   text;
    leg   text;
    legd  text;
    r     record;
    n     bigint;
BEGIN
    LOCK TABLE job_history, job_history_details IN ACCESS EXCLUSIVE MODE;

    SELECT date_trunc('day', greatest(now(), coalesce(max(start_time), now())), 'UTC') + interval '1 day'
    INTO cut FROM job_history;
    day  := to_char(cut AT TIME ZONE 'UTC', 'YYYYMMDD');
    leg  := 'job_history_until_' || day;
    legd := 'job_history_details_until_' || day;

    -- The old tables become the first partitions, with their indexes
    -- renamed after them (the parents' indexes take the old names).
    ALTER TABLE job_history_details DROP CONSTRAINT job_history_details_history_id_fkey;
    EXECUTE format('ALTER TABLE job_history RENAME TO %I', leg);
    EXECUTE format('ALTER TABLE job_history_details RENAME TO %I', legd);
    FOR r IN SELECT c.relname, t.relname AS tab FROM pg_index i
             JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
             WHERE t.relname IN (leg, legd) LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname,
            CASE WHEN r.tab = leg THEN leg || substr(r.relname, length('job_history') + 1)
                 ELSE legd || substr(r.relname, length('job_history_details') + 1) END);
    END LOOP;
    -- The status CHECK was widened NOT VALID (0041); a partition must
    -- hold its parent's constraints validated.
    EXECUTE format('ALTER TABLE %I VALIDATE CONSTRAINT job_history_status_check', leg);

    -- The history: ids from an identity of the parent, continuing the old
    -- sequence (the old identity goes with its sequence).
    SELECT last_value + 1 INTO n FROM job_history_id_seq;
    EXECUTE format('SELECT greatest(%s, coalesce(max(id), 0) + 1) FROM %I', n, leg) INTO n;
    EXECUTE format('ALTER TABLE %I ALTER COLUMN id DROP IDENTITY', leg);
    EXECUTE format('CREATE TABLE job_history (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
        PARTITION BY RANGE (start_time)', leg);
    ALTER TABLE job_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME job_history_id_seq);
    EXECUTE format('ALTER TABLE job_history ALTER COLUMN id RESTART WITH %s', n);
    -- Created on the parent, each index is built on every partition, or
    -- an equal index a partition has is attached (the old table's).
    CREATE UNIQUE INDEX job_history_id_start_idx ON job_history (id, start_time);
    CREATE INDEX job_history_failed_start_idx ON job_history (start_time DESC, id DESC) WHERE status = 'Failed';
    CREATE INDEX job_history_job_start_idx ON job_history (job_id, start_time DESC, id DESC);
    CREATE INDEX job_history_job_status_start_idx ON job_history (job_id, status, start_time DESC, id DESC);
    CREATE INDEX job_history_occurrence_idx ON job_history (job_id, expected_execution_time);
    CREATE INDEX job_history_running_idx ON job_history (lease_expires_at) WHERE status = 'Running';
    CREATE INDEX job_history_start_brin ON job_history USING brin (start_time);
    ALTER TABLE job_history ADD CONSTRAINT job_history_job_id_fkey
        FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE;
    -- A CHECK proving the bound spares ATTACH its own read under the lock.
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT job_history_until_bound CHECK (start_time < %L)', leg, cut);
    EXECUTE format('ALTER TABLE job_history ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', leg, cut);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT job_history_until_bound', leg);

    -- The details: the entry's start time beside its id, as the partition
    -- key. The stored details take the migration's time (their partition
    -- is the old table's, whatever the value).
    EXECUTE format('ALTER TABLE %I ADD COLUMN start_time timestamptz NOT NULL DEFAULT now()', legd);
    EXECUTE format('CREATE TABLE job_history_details (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
        PARTITION BY RANGE (start_time)', legd);
    CREATE UNIQUE INDEX job_history_details_history_start_idx ON job_history_details (history_id, start_time);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT job_history_details_until_bound CHECK (start_time < %L)', legd, cut);
    EXECUTE format('ALTER TABLE job_history_details ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', legd, cut);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT job_history_details_until_bound', legd);

    -- The day partitions of the next week and the default ones. A day's
    -- history pages keep half of each page free (0041's reason).
    FOR i IN 0..6 LOOP
        day := to_char((cut + i * interval '1 day') AT TIME ZONE 'UTC', 'YYYYMMDD');
        EXECUTE format('CREATE TABLE %I PARTITION OF job_history FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = 50)',
            'job_history_' || day, cut + i * interval '1 day', cut + (i + 1) * interval '1 day');
        EXECUTE format('CREATE TABLE %I PARTITION OF job_history_details FOR VALUES FROM (%L) TO (%L)',
            'job_history_details_' || day, cut + i * interval '1 day', cut + (i + 1) * interval '1 day');
    END LOOP;
    CREATE TABLE job_history_default PARTITION OF job_history DEFAULT WITH (fillfactor = 50);
    CREATE TABLE job_history_details_default PARTITION OF job_history_details DEFAULT;
END $$;
