-- 0011_job_search: the "All jobs" page (models/jobs_search.go) searches and
-- sorts every job a user may see, 100,000 of them within 50 ms.
--
-- search is the lower-cased text a search term is matched against (LIKE
-- '%term%' through a trigram index): the job's name, its action's target
-- (the request URI with its host and path, or the storage queue, the
-- service bus namespace, queue or topic) and its error action's. It is
-- generated from the definition, so no writer maintains it and no trigger
-- computes it. Collection names are matched separately (they are few).
-- A later column that should be searchable too (the state note of SPEC
-- §13.2) is added by dropping and re-adding search with that column in
-- the expression, and re-creating jobs_search_trgm_idx.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE jobs ADD COLUMN search text GENERATED ALWAYS AS (lower(
    name
    || ' ' || coalesce(definition -> 'action' -> 'request' ->> 'uri', '')
    || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'storageAccount', '')
    || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'queueName', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'namespace', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'queueName', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'namespace', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'topicPath', '')
    || ' ' || coalesce(definition -> 'action' -> 'errorAction' -> 'request' ->> 'uri', '')
)) STORED;
CREATE INDEX jobs_search_trgm_idx ON jobs USING gin (search gin_trgm_ops);

-- The time zone filter compares the recurrence's zone as written ('' when
-- the job has none, which means UTC).
ALTER TABLE jobs ADD COLUMN time_zone text GENERATED ALWAYS AS (
    coalesce(definition -> 'recurrence' ->> 'timeZone', '')
) STORED;

-- The filters that a walk in sort order would check row by row over the
-- whole table when few jobs match: a state (most jobs are enabled) and a
-- time zone.
CREATE INDEX jobs_state_idx ON jobs (state);
CREATE INDEX jobs_time_zone_idx ON jobs (lower(time_zone));

-- The page's sort orders, each with the job id as the tie-break so that
-- keyset paging visits every job once: name; next run (none last); last
-- run (newest first, never last); failures (most first).
CREATE INDEX jobs_name_id_idx ON jobs (lower(name), id);
CREATE INDEX jobs_next_id_idx ON jobs ((coalesce(next_run_at, 'infinity'::timestamptz)), id);
CREATE INDEX jobs_last_id_idx ON jobs ((coalesce(last_run_at, '-infinity'::timestamptz)), id);
CREATE INDEX jobs_failures_id_idx ON jobs (failure_count, id);
