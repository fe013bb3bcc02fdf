-- 0001_init: workspaces, users, API tokens, resource groups, job collections,
-- jobs and their history.

-- A workspace is what the Azure Scheduler API calls a subscription.
CREATE TABLE workspaces (
    id           text PRIMARY KEY
                 CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,89}$'),
    display_name text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username      text NOT NULL CHECK (username ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
    password_hash text NOT NULL,
    is_admin      boolean NOT NULL DEFAULT false,
    disabled      boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Sign-in looks users up by name, case-insensitively.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

CREATE TABLE memberships (
    workspace_id text   NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role         text   NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user_id_idx ON memberships (user_id);

-- API tokens are stored as the SHA-256 of the token; the token itself is
-- shown once when it is created.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text   NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_hash   bytea  NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    prefix       text   NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);

-- A resource group is created implicitly by the first collection put into it.
CREATE TABLE resource_groups (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL CHECK (name ~ '^[-\w\._\(\)]{1,90}$'),
    created_at   timestamptz NOT NULL DEFAULT now()
);
-- ARM names are case-insensitive.
CREATE UNIQUE INDEX resource_groups_workspace_name_key
    ON resource_groups (workspace_id, lower(name));

CREATE TABLE job_collections (
    id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resource_group_id        bigint NOT NULL REFERENCES resource_groups (id) ON DELETE CASCADE,
    name                     text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$'),
    location                 text NOT NULL DEFAULT '',
    tags                     jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(tags) = 'object'),
    sku                      text NOT NULL DEFAULT 'Standard'
                             CHECK (sku IN ('Free', 'Standard', 'P10Premium', 'P20Premium')),
    state                    text NOT NULL DEFAULT 'Enabled'
                             CHECK (state IN ('Enabled', 'Disabled', 'Suspended')),
    max_job_count            integer CHECK (max_job_count >= 0),
    max_job_occurrence       integer CHECK (max_job_occurrence >= 0),
    max_recurrence_frequency text
                             CHECK (max_recurrence_frequency IN ('minute', 'hour', 'day', 'week', 'month', 'year')),
    max_recurrence_interval  integer CHECK (max_recurrence_interval >= 1),
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX job_collections_group_name_key
    ON job_collections (resource_group_id, lower(name));

-- A job keeps its definition exactly as it was sent (type json keeps the
-- text, unlike jsonb), beside the columns the engine queries.
CREATE TABLE jobs (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_collection_id bigint NOT NULL REFERENCES job_collections (id) ON DELETE CASCADE,
    name              text   NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$'),
    definition        json   NOT NULL,
    state             text   NOT NULL DEFAULT 'enabled'
                      CHECK (state IN ('enabled', 'disabled', 'completed', 'faulted')),
    next_run_at       timestamptz,
    last_run_at       timestamptz,
    execution_count   bigint NOT NULL DEFAULT 0 CHECK (execution_count >= 0),
    failure_count     bigint NOT NULL DEFAULT 0 CHECK (failure_count >= 0),
    faulted_count     bigint NOT NULL DEFAULT 0 CHECK (faulted_count >= 0),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    ended_at          timestamptz,
    CHECK ((state IN ('completed', 'faulted')) = (ended_at IS NOT NULL))
);
CREATE UNIQUE INDEX jobs_collection_name_key ON jobs (job_collection_id, lower(name));
-- The engine looks for the earliest due enabled job.
CREATE INDEX jobs_due_idx ON jobs (next_run_at) WHERE state = 'enabled' AND next_run_at IS NOT NULL;
-- Retention deletes finished jobs some time after they ended.
CREATE INDEX jobs_ended_at_idx ON jobs (ended_at) WHERE ended_at IS NOT NULL;

-- One entry per execution attempt (and per postponed occurrence).
CREATE TABLE job_history (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id                  bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    start_time              timestamptz NOT NULL,
    end_time                timestamptz,
    expected_execution_time timestamptz NOT NULL,
    action_name             text NOT NULL CHECK (action_name IN ('MainAction', 'ErrorAction')),
    status                  text NOT NULL CHECK (status IN ('Completed', 'Failed', 'Postponed')),
    message                 text NOT NULL DEFAULT '',
    retry_count             integer NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    repeat_count            bigint  NOT NULL DEFAULT 0 CHECK (repeat_count >= 0),
    CHECK (end_time IS NULL OR end_time >= start_time)
);
-- History is listed newest first per job, paged by keyset.
CREATE INDEX job_history_job_start_idx ON job_history (job_id, start_time DESC, id DESC);
