-- 0027_job_name_domain: a job's name is checked when it is written, not on
-- every update of its row.
--
-- PostgreSQL evaluates every CHECK constraint of a table on every UPDATE,
-- whatever columns the update sets. The engine updates a job's row twice
-- per execution (its claim and its result) and never its name, yet each
-- update ran the name's regular expression: about 6.5 µs per row, 3 % of
-- the server's CPU at 2,000 executions per second (perf, bench/river). A
-- domain's CHECK is evaluated only when a value is converted to the domain:
-- an INSERT, or an UPDATE that sets the name. The rule is the same as
-- 0001's jobs_name_check. Clients see the base type (text): PostgreSQL
-- describes a domain's column by its base type.
--
-- job_facets_derived (0025) reads jobs.name, so it is dropped and created
-- again unchanged around the change of type.
CREATE DOMAIN job_name AS text
    CONSTRAINT job_name_format CHECK (VALUE ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$');

DROP VIEW job_facets_derived;

ALTER TABLE jobs
    DROP CONSTRAINT jobs_name_check,
    ALTER COLUMN name TYPE job_name;

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
