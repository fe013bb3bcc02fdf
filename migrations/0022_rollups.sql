-- 0022_rollups: the dashboard reads counts kept up to date on write
-- instead of counting 100,000 jobs and the current hour's executions on
-- every visit (models/rollups.go maintains both, in the transaction of
-- the write; no trigger computes them).
--
-- collection_job_counts: a collection's jobs by state. A collection
-- without a row has no job. Every write that creates, deletes or changes
-- the state of jobs recounts the collections it touched, holding this
-- row's lock until it commits (refreshJobCounts).
CREATE TABLE collection_job_counts (
    job_collection_id bigint PRIMARY KEY REFERENCES job_collections (id) ON DELETE CASCADE,
    enabled           bigint NOT NULL DEFAULT 0 CHECK (enabled >= 0),
    disabled          bigint NOT NULL DEFAULT 0 CHECK (disabled >= 0),
    completed         bigint NOT NULL DEFAULT 0 CHECK (completed >= 0),
    faulted           bigint NOT NULL DEFAULT 0 CHECK (faulted >= 0)
);

INSERT INTO collection_job_counts (job_collection_id, enabled, disabled, completed, faulted)
SELECT job_collection_id,
       count(*) FILTER (WHERE state = 'enabled'),
       count(*) FILTER (WHERE state = 'disabled'),
       count(*) FILTER (WHERE state = 'completed'),
       count(*) FILTER (WHERE state = 'faulted')
FROM jobs
GROUP BY job_collection_id;

-- history_hours (0005) now holds every hour, the current one included:
-- each history write adds its entry to its hour and each delete of
-- history (retention, a job or collection deleted) takes it away
-- (max_lateness_ms is not lowered by a delete). Recount it from the
-- history as it is; the hours that were counted on demand are no longer
-- tracked.
--
-- Every engine adds to the current hour's rows: to keep its writers from
-- waiting for each other's row locks until they commit, each connection
-- writes to one of 16 slots (slot = its backend pid mod 16) and readers
-- add the slots up. A delete of history writes its count, negative, into
-- its own slot: a slot may go below zero, the sum of an hour never does.
DELETE FROM history_hours;
ALTER TABLE history_hours DROP CONSTRAINT history_hours_pkey,
    DROP CONSTRAINT history_hours_count_check,
    ADD COLUMN slot smallint NOT NULL DEFAULT 0 CHECK (slot BETWEEN 0 AND 15),
    ADD PRIMARY KEY (workspace_id, hour, status, slot);
INSERT INTO history_hours (workspace_id, hour, status, count, max_lateness_ms)
SELECT rg.workspace_id, date_trunc('hour', h.start_time), h.status, count(*), max(h.lateness_ms)
FROM job_history h
JOIN jobs j ON j.id = h.job_id
JOIN job_collections c ON c.id = j.job_collection_id
JOIN resource_groups rg ON rg.id = c.resource_group_id
GROUP BY 1, 2, 3;
DROP TABLE history_hours_done;

-- The dashboard's upcoming runs: the soonest of each enabled collection,
-- when walking every job in next-run order finds too few in enabled
-- collections (most jobs in disabled collections).
CREATE INDEX jobs_collection_due_idx ON jobs (job_collection_id, next_run_at)
    WHERE state = 'enabled' AND next_run_at IS NOT NULL;
