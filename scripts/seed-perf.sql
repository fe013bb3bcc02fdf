-- seed-perf.sql fills a migrated Sked database with 100,000 jobs and
-- 1,000,000 history entries for the page benchmarks (BENCHMARKS.md): 100
-- collections default/perf/big-000 … big-099 (P20Premium: 1,000 jobs
-- each, the most a collection may hold); each job has 9 entries and the
-- job "busy" of big-000 100,000 more. Run it through scripts/seed-perf.sh.
BEGIN;
INSERT INTO resource_groups (workspace_id, name) VALUES ('default', 'perf')
    ON CONFLICT (workspace_id, lower(name)) DO NOTHING;
-- Jobs arrive scheduled (next_run_at given), so no engine has to compute
-- 100,000 schedules first; their collections are disabled so none runs.
INSERT INTO job_collections (resource_group_id, name, sku, state)
    SELECT rg.id, 'big-' || lpad(c::text, 3, '0'), 'P20Premium', 'Disabled'
    FROM resource_groups rg, generate_series(0, 99) AS c
    WHERE rg.workspace_id = 'default' AND rg.name = 'perf';
INSERT INTO jobs (job_collection_id, name, definition, state, next_run_at, last_run_at)
SELECT c.id,
       CASE WHEN g = 1 AND c.name = 'big-000' THEN 'busy' ELSE 'job-' || lpad(g::text, 6, '0') END,
       json_build_object(
           'action', json_build_object('type', 'https', 'request', json_build_object('uri', 'https://example.com/hook/' || g, 'method', 'POST')),
           'recurrence', json_build_object('frequency', 'hour', 'interval', 1 + g % 12, 'schedule', json_build_object('minutes', json_build_array(g % 60))),
           'state', 'enabled'),
       'enabled',
       now() + (g % 720) * interval '1 minute',
       now() - interval '1 hour'
FROM job_collections c, generate_series(1, 1000) AS g
WHERE c.name LIKE 'big-%';
-- Their results (migration 0029): 9 executions, 0 to 2 failures.
INSERT INTO job_results (job_id, execution_count, failure_count)
SELECT j.id, 9, coalesce(substring(j.name FROM '[0-9]+$')::int, 1) % 3
FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
WHERE c.name LIKE 'big-%';

INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message, retry_count, repeat_count, lateness_ms)
SELECT j.id,
       now() - (k * interval '1 hour') - (j.id % 3600) * interval '1 second',
       now() - (k * interval '1 hour') - (j.id % 3600) * interval '1 second' + interval '120 milliseconds',
       now() - (k * interval '1 hour') - (j.id % 3600) * interval '1 second',
       'MainAction',
       CASE WHEN (j.id + k) % 7 = 0 THEN 'Failed' ELSE 'Completed' END,
       'HTTP 200 OK', 0, k, 5
FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id AND c.name LIKE 'big-%', generate_series(1, 9) AS k;

INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message, retry_count, repeat_count, lateness_ms)
SELECT j.id, now() - (k * interval '30 seconds'), now() - (k * interval '30 seconds') + interval '80 milliseconds',
       now() - (k * interval '30 seconds'), 'MainAction',
       CASE WHEN k % 11 = 0 THEN 'Failed' ELSE 'Completed' END, 'HTTP 200 OK', 0, k, 3
FROM jobs j, generate_series(1, 100000) AS k
WHERE j.name = 'busy';

-- The rows above bypass the store, which keeps the dashboard's rollups
-- (models/rollups.go): count them as migrations 0022, 0023 and 0024 do.
INSERT INTO collection_job_counts (job_collection_id, enabled, disabled, completed, faulted)
SELECT job_collection_id,
       count(*) FILTER (WHERE state = 'enabled'), count(*) FILTER (WHERE state = 'disabled'),
       count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'faulted')
FROM jobs GROUP BY job_collection_id
ON CONFLICT (job_collection_id) DO UPDATE
SET enabled = excluded.enabled, disabled = excluded.disabled, completed = excluded.completed, faulted = excluded.faulted;
DELETE FROM history_hours;
INSERT INTO history_hours (workspace_id, hour, status, count, max_lateness_ms)
SELECT rg.workspace_id, date_trunc('hour', h.start_time), h.status, count(*), max(h.lateness_ms)
FROM job_history h
JOIN jobs j ON j.id = h.job_id
JOIN job_collections c ON c.id = j.job_collection_id
JOIN resource_groups rg ON rg.id = c.resource_group_id
GROUP BY 1, 2, 3;
UPDATE job_results j SET last_status = h.status, last_status_at = h.start_time, last_failed_at = h.last_failed
FROM (SELECT DISTINCT ON (job_id) job_id, status, start_time,
             max(start_time) FILTER (WHERE status = 'Failed') OVER (PARTITION BY job_id) AS last_failed
      FROM job_history
      ORDER BY job_id, start_time DESC, id DESC) h
WHERE h.job_id = j.job_id;
-- And the jobs' facets (migration 0025, models/job_facets.go).
INSERT INTO job_facets (job_id, search, time_zone, calendar_excludes)
SELECT job_id, search, time_zone, calendar_excludes FROM job_facets_derived
ON CONFLICT (job_id) DO NOTHING;
COMMIT;
-- The update above left a second version of every job's results: compact
-- the tables and their indexes as a long-running installation would have
-- them.
VACUUM FULL jobs, job_results;
VACUUM ANALYZE;
