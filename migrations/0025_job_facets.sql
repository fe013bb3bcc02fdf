-- 0025_job_facets: what the "All jobs" page and the calendars derive from
-- a job's name, definition and state note, off the engine's hot path.
--
-- The engine rewrites a job's row twice per execution (claim, result).
-- Each new version recomputed the STORED generated columns search (0019)
-- and time_zone (0011), about ten parses of the json definition, inserted
-- dozens of trigram entries into jobs_search_trgm_idx and evaluated the
-- expression of jobs_calendars_exclude_idx (0007). They move to a side
-- table, job_facets, that only the writers of a job's name, definition or
-- state note touch (models/job_facets.go: refreshJobFacets, in the
-- write's transaction; no trigger, SPEC §12).
--
-- job_facets_derived is the one place of the expressions (the same as
-- 0007, 0011 and 0019): the store, the backfill below and the checks
-- read it. A later searchable column changes the view (CREATE OR REPLACE
-- VIEW in a new migration) and refreshes every row.
CREATE VIEW job_facets_derived AS
SELECT j.id AS job_id,
       lower(
           j.name
           || ' ' || coalesce(j.definition -> 'action' -> 'request' ->> 'uri', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'queueMessage' ->> 'storageAccount', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'queueMessage' ->> 'queueName', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'serviceBusQueueMessage' ->> 'namespace', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'serviceBusQueueMessage' ->> 'queueName', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'serviceBusTopicMessage' ->> 'namespace', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'serviceBusTopicMessage' ->> 'topicPath', '')
           || ' ' || coalesce(j.definition -> 'action' -> 'errorAction' -> 'request' ->> 'uri', '')
           || ' ' || j.state_note
       ) AS search,
       coalesce(j.definition -> 'recurrence' ->> 'timeZone', '') AS time_zone,
       lower((j.definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb AS calendar_excludes
FROM jobs j;

-- One row per job. search: the lower-cased text a search word is matched
-- against (LIKE '%word%'); time_zone: the recurrence's zone as written (''
-- for none, which means UTC); calendar_excludes: the lower-cased names of
-- recurrence.calendars.exclude as a JSON array (NULL for none), matched
-- with @>.
CREATE TABLE job_facets (
    job_id            bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    search            text NOT NULL,
    time_zone         text NOT NULL,
    calendar_excludes jsonb
);

INSERT INTO job_facets (job_id, search, time_zone, calendar_excludes)
SELECT job_id, search, time_zone, calendar_excludes FROM job_facets_derived;

-- The search words (trigrams), the time zone filter, and "which jobs
-- exclude calendar X" (the @> condition implies NOT NULL, so the partial
-- index serves it and jobs without calendars stay out of it).
CREATE INDEX job_facets_search_trgm_idx ON job_facets USING gin (search gin_trgm_ops);
CREATE INDEX job_facets_time_zone_idx ON job_facets (lower(time_zone));
CREATE INDEX job_facets_calendar_excludes_idx ON job_facets USING gin (calendar_excludes)
    WHERE calendar_excludes IS NOT NULL;

DROP INDEX jobs_calendars_exclude_idx;
DROP INDEX jobs_search_trgm_idx;
DROP INDEX jobs_time_zone_idx;
ALTER TABLE jobs DROP COLUMN search, DROP COLUMN time_zone;

ANALYZE job_facets;
