-- 0034_job_facets_function: a job's facets as a function of its name,
-- definition and state note, so that the statement that writes a job can
-- write its facets too (models/jobs_save.go, upsertJobs: one statement,
-- one round trip, while the writer holds the job's lock).
--
-- job_facets_of is now the one place of the expressions of 0025 (the
-- same, unchanged); job_facets_derived keeps its columns and rows and
-- reads them from it, so that a release that still reads the view (the
-- previous one, during a rolling upgrade) sees no difference. A later
-- searchable column changes the function (CREATE OR REPLACE FUNCTION in
-- a new migration, same columns) and refreshes every row.
CREATE FUNCTION job_facets_of(name text, definition json, state_note text)
    RETURNS TABLE (search text, time_zone text, calendar_excludes jsonb)
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1
AS $$
SELECT lower(
           name
           || ' ' || coalesce(definition -> 'action' -> 'request' ->> 'uri', '')
           || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'storageAccount', '')
           || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'queueName', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'namespace', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'queueName', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'namespace', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'topicPath', '')
           || ' ' || coalesce(definition -> 'action' -> 'errorAction' -> 'request' ->> 'uri', '')
           || ' ' || state_note
       ),
       coalesce(definition -> 'recurrence' ->> 'timeZone', ''),
       lower((definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb
$$;

CREATE OR REPLACE VIEW job_facets_derived AS
SELECT j.id AS job_id, f.search, f.time_zone, f.calendar_excludes
FROM jobs j CROSS JOIN LATERAL job_facets_of(j.name, j.definition, j.state_note) f;
