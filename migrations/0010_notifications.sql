-- 0010_notifications: channels, alert rules and the notifications queue
-- and delivery log of a workspace (SPEC §13.3).

-- A channel is where notifications go. Its secrets (a webhook's signing
-- secret, a Slack or Teams URL, an SMTP password) are sealed like a job's
-- (models/secretbox.go) and never returned; config holds the rest
-- (models/notifydef Channel.Config).
CREATE TABLE channels (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text        NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    type         text        NOT NULL CHECK (type IN ('webhook', 'slack', 'teams', 'email')),
    description  text        NOT NULL DEFAULT '',
    config       jsonb       NOT NULL CHECK (jsonb_typeof(config) = 'object'),
    secrets      bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    created_by   bigint      REFERENCES users (id) ON DELETE SET NULL,
    updated_by   bigint      REFERENCES users (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX channels_workspace_name_key ON channels (workspace_id, lower(name));
CREATE INDEX channels_created_by_idx ON channels (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX channels_updated_by_idx ON channels (updated_by) WHERE updated_by IS NOT NULL;

-- An alert rule sends some events of the jobs in its scope to a channel
-- (of the same workspace). A channel with rules cannot be deleted.
-- Empty scope fields mean "any": all empty is the whole workspace.
CREATE TABLE alert_rules (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id         text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name                 text        NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    channel_id           bigint      NOT NULL REFERENCES channels (id) ON DELETE RESTRICT,
    scope_resource_group text        NOT NULL DEFAULT '',
    scope_collection     text        NOT NULL DEFAULT '',
    scope_job            text        NOT NULL DEFAULT '',
    -- The event types, a JSON array of strings (models/notifydef).
    events               jsonb       NOT NULL CHECK (jsonb_typeof(events) = 'array' AND jsonb_array_length(events) >= 1
        AND events <@ '["attemptFailed", "occurrenceFaulted", "recovered", "missed", "jobCompleted", "jobFaulted",
        "consecutiveFailures"]'::jsonb),
    -- N of consecutiveFailures; 0 when the rule does not send them.
    threshold            integer     NOT NULL DEFAULT 0 CHECK (threshold = 0 OR threshold >= 2),
    min_interval_ms      bigint      NOT NULL DEFAULT 0 CHECK (min_interval_ms >= 0),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    created_by           bigint      REFERENCES users (id) ON DELETE SET NULL,
    updated_by           bigint      REFERENCES users (id) ON DELETE SET NULL,
    CHECK ((threshold >= 2) = (events ? 'consecutiveFailures')),
    CHECK (scope_job = '' OR scope_collection <> ''),
    CHECK (scope_collection = '' OR scope_resource_group <> '')
);
CREATE UNIQUE INDEX alert_rules_workspace_name_key ON alert_rules (workspace_id, lower(name));
CREATE INDEX alert_rules_channel_idx ON alert_rules (channel_id);
CREATE INDEX alert_rules_created_by_idx ON alert_rules (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX alert_rules_updated_by_idx ON alert_rules (updated_by) WHERE updated_by IS NOT NULL;

-- A notification is one event for one channel: the queue the engine
-- sends from and the delivery log. It is stored before it is sent (in
-- the transaction that wrote the history entry causing it); the engine
-- claims due rows with FOR UPDATE SKIP LOCKED like attempts (status
-- 'sending' with a lease), records each try (attempts, the last answer),
-- and retries with backoff until delivered or failed. Deleting the channel
-- or the rule keeps the log (their names stay).
CREATE TABLE notifications (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id     text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    channel_id       bigint      REFERENCES channels (id) ON DELETE SET NULL,
    channel_name     text        NOT NULL,
    rule_id          bigint      REFERENCES alert_rules (id) ON DELETE SET NULL,
    rule_name        text        NOT NULL DEFAULT '',
    job_id           bigint      REFERENCES jobs (id) ON DELETE SET NULL,
    -- The event's id (webhook-id), unique per notification: a receiver
    -- drops a second delivery of the same id.
    event_id         text        NOT NULL UNIQUE,
    event_type       text        NOT NULL CHECK (event_type IN ('attemptFailed', 'occurrenceFaulted', 'recovered',
        'missed', 'jobCompleted', 'jobFaulted', 'consecutiveFailures', 'test')),
    -- The event JSON of SPEC §13.3 (models/notifydef Event).
    event            jsonb       NOT NULL CHECK (jsonb_typeof(event) = 'object'),
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_expires_at timestamptz,
    -- The last try's answer: HTTP status (0: none), the answer text (an
    -- SMTP reply, the start of an HTTP body) and the error, if any.
    last_status_code integer     NOT NULL DEFAULT 0,
    last_answer      text        NOT NULL DEFAULT '',
    last_error       text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    CHECK ((status = 'sending') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
    CHECK ((status IN ('delivered', 'failed')) = (finished_at IS NOT NULL))
);
-- Due notifications, earliest first (the engine's claim).
CREATE INDEX notifications_pending_idx ON notifications (next_attempt_at) WHERE status = 'pending';
-- Expired leases of crashed senders.
CREATE INDEX notifications_sending_idx ON notifications (lease_expires_at) WHERE status = 'sending';
-- The delivery log of a workspace and of a channel, newest first.
CREATE INDEX notifications_workspace_idx ON notifications (workspace_id, id DESC);
CREATE INDEX notifications_channel_idx ON notifications (channel_id, id DESC);
CREATE INDEX notifications_job_idx ON notifications (job_id) WHERE job_id IS NOT NULL;
-- Retention of finished notifications.
CREATE INDEX notifications_finished_idx ON notifications (finished_at) WHERE finished_at IS NOT NULL;
