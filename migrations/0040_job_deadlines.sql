-- 0040_job_deadlines: deadlines of jobs (SPEC §17.2). An occurrence of a
-- job with deadline.succeedWithin is watched from the claim that starts
-- (or skips) it until its deadline moment, when the engine decides it:
-- met by a success of its main action by then, else deadlineMissed. An
-- attempt still running deadline.maxDuration after it started raises
-- slowRun, once. And the minInterval windows of alert rules for
-- heartbeat monitors.
--
-- Expand only: new tables and CHECKs widened by adding values (the
-- previous release's writes pass them), rebuilt from the values they hold
-- when this migration runs, so that it keeps any value another migration
-- added before it.

-- The watched occurrences of jobs with a deadline: one row per occurrence
-- (the primary key: claims by several engines record it once), written
-- by the claim that started or skipped it. decided_at is set by the one
-- engine that decides it at deadline_at (met_at: the end of the success
-- that met it; missed: deadlineMissed was raised).
CREATE TABLE job_deadlines (
    job_id        bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    -- The occurrence's identity (its nominal time) and its due time (the
    -- spread-shifted time the engine starts it at).
    expected_time timestamptz NOT NULL,
    due_at        timestamptz NOT NULL,
    deadline_at   timestamptz NOT NULL CHECK (deadline_at > due_at),
    -- skipped: the occurrence did not run (misfire policy, concurrency).
    skipped       boolean     NOT NULL DEFAULT false,
    decided_at    timestamptz,
    met_at        timestamptz,
    missed        boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (job_id, expected_time)
);
-- The open watches by deadline (the engine's timer and its decisions).
CREATE INDEX job_deadlines_open_idx ON job_deadlines (deadline_at) WHERE decided_at IS NULL;
-- Retention of decided watches.
CREATE INDEX job_deadlines_decided_idx ON job_deadlines (decided_at) WHERE decided_at IS NOT NULL;

-- The attempts that raised slowRun: the primary key makes it once across
-- engines. No foreign key to job_attempts: a finished attempt's row is
-- deleted (its history entry remains, with the same attempt_id).
CREATE TABLE job_slow_runs (
    attempt_id    bigint      PRIMARY KEY,
    job_id        bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    action        text        NOT NULL CHECK (action IN ('MainAction', 'ErrorAction')),
    expected_time timestamptz NOT NULL,
    started_at    timestamptz NOT NULL,
    raised_at     timestamptz NOT NULL
);
-- A job's latest slow runs (its page); retention.
CREATE INDEX job_slow_runs_job_idx ON job_slow_runs (job_id, raised_at DESC);
CREATE INDEX job_slow_runs_raised_idx ON job_slow_runs (raised_at);

-- The minInterval windows of alert rules for heartbeat monitors, as
-- notification_throttles holds them for jobs: a rule's window for one
-- monitor and its waiting digest.
CREATE TABLE monitor_throttles (
    rule_id      bigint      NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    monitor_id   bigint      NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    window_until timestamptz NOT NULL,
    digest_id    bigint      REFERENCES notifications (id) ON DELETE SET NULL,
    PRIMARY KEY (rule_id, monitor_id)
);
CREATE INDEX monitor_throttles_monitor_idx ON monitor_throttles (monitor_id);
CREATE INDEX monitor_throttles_digest_idx ON monitor_throttles (digest_id) WHERE digest_id IS NOT NULL;
CREATE INDEX monitor_throttles_window_idx ON monitor_throttles (window_until);

-- Widen the CHECKs of the rules' events and the notifications' event
-- types (deadlineMissed; slowRun is there since 0038), each keeping every
-- value it holds now.
DO $$
DECLARE
    def  text;
    vals text[];
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'notifications'::regclass AND conname = 'notifications_event_type_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT m[1] AS v FROM regexp_matches(def, '''([^'']+)''::text', 'g') AS m
        UNION SELECT unnest(ARRAY['deadlineMissed', 'slowRun'])) AS t;
    ALTER TABLE notifications DROP CONSTRAINT notifications_event_type_check;
    EXECUTE format('ALTER TABLE notifications ADD CONSTRAINT notifications_event_type_check CHECK (event_type IN (%s))',
        (SELECT string_agg(quote_literal(v), ', ') FROM unnest(vals) AS v));

    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'alert_rules'::regclass AND conname = 'alert_rules_events_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT jsonb_array_elements_text(substring(def FROM '''(\[[^'']*\])''::jsonb')::jsonb) AS v
        UNION SELECT unnest(ARRAY['deadlineMissed', 'slowRun'])) AS t;
    ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_events_check;
    EXECUTE format('ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_events_check CHECK (jsonb_typeof(events) = ''array'' AND jsonb_array_length(events) >= 1 AND events <@ %L::jsonb)', to_jsonb(vals)::text);
END
$$;
