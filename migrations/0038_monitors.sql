-- 0038_monitors: heartbeat monitors of a workspace (SPEC §17.3): work Sked
-- does not run reports its runs by pinging a URL; the engine raises an
-- alert event when an expected ping does not come.
--
-- Expand only: new tables, a nullable column, a defaulted column, and
-- CHECKs widened by adding values (the previous release's writes pass
-- them). The widened CHECKs are rebuilt from the values they hold when
-- this migration runs, so that it keeps any value another migration
-- added before it.

-- A monitor: its definition (models/monitordef: schedule, grace,
-- description, deadline, paused), its ping token (the SHA-256 of the
-- token to find it by, the token itself sealed like a job's secrets so
-- that editors can be shown it), and the engine's progress: every
-- expected occurrence up to checked_through has been decided
-- (monitor_occurrences), status is what the last decision or ping made
-- it, and started_at the start ping still waiting for its success.
CREATE TABLE monitors (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id     text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name             text        NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    definition       jsonb       NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
    token_hash       bytea       NOT NULL UNIQUE,
    token_sealed     bytea       NOT NULL,
    -- The recurrence's anchor (DTSTART): when the schedule was last set.
    anchor           timestamptz NOT NULL,
    -- Every occurrence at or before checked_through is decided; the next
    -- one is the schedule's first after it.
    checked_through  timestamptz NOT NULL,
    status           text        NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'up', 'down')),
    status_since     timestamptz NOT NULL DEFAULT now(),
    last_ping_at     timestamptz,
    last_ping_kind   text        CHECK (last_ping_kind IN ('success', 'start', 'fail')),
    last_success_at  timestamptz,
    -- The open start ping (a start not yet followed by a success), and
    -- the start whose slowRun was raised (so that it is raised once).
    started_at       timestamptz,
    slow_raised_for  timestamptz,
    version          bigint      NOT NULL DEFAULT 1,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    created_by       bigint      REFERENCES users (id) ON DELETE SET NULL,
    updated_by       bigint      REFERENCES users (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX monitors_workspace_name_key ON monitors (workspace_id, lower(name));
CREATE INDEX monitors_created_by_idx ON monitors (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX monitors_updated_by_idx ON monitors (updated_by) WHERE updated_by IS NOT NULL;

-- The pings a monitor received, newest last; at is the receiving
-- instance's clock. message is a fail ping's body (at most 10 kB).
CREATE TABLE monitor_pings (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    monitor_id bigint      NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (kind IN ('success', 'start', 'fail')),
    at         timestamptz NOT NULL,
    message    text        NOT NULL DEFAULT '' CHECK (octet_length(message) <= 10240)
);
-- A monitor's pings by time (its page, the engine's "met" check).
CREATE INDEX monitor_pings_monitor_at_idx ON monitor_pings (monitor_id, at);

-- The decided occurrences of a monitor: met by a success ping (met_at) or
-- missed. The primary key makes a second decision of one occurrence (two
-- engines) impossible: the insert that wins raises the events.
CREATE TABLE monitor_occurrences (
    monitor_id  bigint      NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    expected_at timestamptz NOT NULL,
    met_at      timestamptz,
    decided_at  timestamptz NOT NULL,
    PRIMARY KEY (monitor_id, expected_at)
);

-- Alert rules may scope one monitor (its name), which excludes a job scope.
ALTER TABLE alert_rules ADD COLUMN scope_monitor text NOT NULL DEFAULT '';
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_scope_monitor_check
    CHECK (scope_monitor = '' OR scope_resource_group = '');

-- A notification may be about a monitor.
ALTER TABLE notifications ADD COLUMN monitor_id bigint REFERENCES monitors (id) ON DELETE SET NULL;
CREATE INDEX notifications_monitor_idx ON notifications (monitor_id) WHERE monitor_id IS NOT NULL;

-- Widen the CHECKs: the audit log's actions, the rules' events and the
-- notifications' event types, each keeping every value it holds now.
DO $$
DECLARE
    def  text;
    vals text[];
BEGIN
    -- audit_entries.action
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_entries'::regclass AND conname = 'audit_entries_action_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT m[1] AS v FROM regexp_matches(def, '''([^'']+)''::text', 'g') AS m
        UNION SELECT unnest(ARRAY['monitor.put', 'monitor.delete', 'monitor.rotate'])) AS t;
    ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_action_check;
    EXECUTE format('ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_action_check CHECK (action IN (%s))',
        (SELECT string_agg(quote_literal(v), ', ') FROM unnest(vals) AS v));

    -- notifications.event_type
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'notifications'::regclass AND conname = 'notifications_event_type_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT m[1] AS v FROM regexp_matches(def, '''([^'']+)''::text', 'g') AS m
        UNION SELECT unnest(ARRAY['monitorMissed', 'monitorRecovered', 'monitorFailed', 'slowRun'])) AS t;
    ALTER TABLE notifications DROP CONSTRAINT notifications_event_type_check;
    EXECUTE format('ALTER TABLE notifications ADD CONSTRAINT notifications_event_type_check CHECK (event_type IN (%s))',
        (SELECT string_agg(quote_literal(v), ', ') FROM unnest(vals) AS v));

    -- alert_rules.events: the values inside its jsonb array literal.
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'alert_rules'::regclass AND conname = 'alert_rules_events_check';
    SELECT array_agg(DISTINCT v ORDER BY v) INTO vals FROM (
        SELECT jsonb_array_elements_text(substring(def FROM '''(\[[^'']*\])''::jsonb')::jsonb) AS v
        UNION SELECT unnest(ARRAY['monitorMissed', 'monitorRecovered', 'monitorFailed', 'slowRun'])) AS t;
    ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_events_check;
    EXECUTE format('ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_events_check CHECK (jsonb_typeof(events) = ''array'' AND jsonb_array_length(events) >= 1 AND events <@ %L::jsonb)', to_jsonb(vals)::text);
END
$$;
