-- 0037_target_limits: a workspace may limit what its jobs send to one host
-- (SPEC §16.2): at most max_concurrent attempts in flight across all
-- engines, at most max_per_second starts in any second (by the database's
-- clock). Expand only: a new table, nullable columns, a wider CHECK.
--
-- The claim holds an attempt to a limited host as a pending attempt
-- tagged with its host (target_workspace, target_host) and the moment it
-- was first held (limit_held_at); it starts the tagged attempts of a host
-- in due-time order while the host has room, counting the running tagged
-- attempts of the host (a finished attempt is deleted, an interrupted one
-- is finished by crash recovery: the slots free themselves) and the
-- starts of the current second in the limit's row (second_at,
-- second_starts), under that row's lock.

CREATE TABLE target_limits (
    workspace_id   text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    -- host is the host, or host:port, of the request URI, lower case
    -- (models.NormalizeTargetHost).
    host           text        NOT NULL CHECK (host <> '' AND host = lower(host) AND length(host) <= 261),
    -- NULL: no limit of that kind; at least one is set.
    max_concurrent integer     CHECK (max_concurrent BETWEEN 1 AND 100000),
    max_per_second integer     CHECK (max_per_second BETWEEN 1 AND 100000),
    -- The second (date_trunc of the database's clock) whose starts
    -- second_starts counts; written by the claim only.
    second_at      timestamptz,
    second_starts  integer     NOT NULL DEFAULT 0,
    -- The longest wait for this limit of an attempt started since
    -- longest_wait_at's hour began (the Targets page), written by the
    -- claim only.
    longest_wait_ms bigint,
    longest_wait_at timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, host),
    CHECK (max_concurrent IS NOT NULL OR max_per_second IS NOT NULL)
);

ALTER TABLE job_attempts
    -- The limited host the attempt counts under, NULL when its host had
    -- no limit when it was claimed.
    ADD COLUMN target_workspace text,
    ADD COLUMN target_host      text,
    -- When the claim first held the attempt for its host's limit.
    ADD COLUMN limit_held_at    timestamptz,
    -- How long it waited for the limit, in milliseconds, set when it
    -- starts (NULL: it was never held).
    ADD COLUMN limit_wait_ms    bigint;

-- The running and waiting attempts of a limited host, the waiting ones in
-- the order they start (due_at, id).
CREATE INDEX job_attempts_target_idx ON job_attempts (target_workspace, target_host, status, due_at, id)
    WHERE target_host IS NOT NULL;

-- How long the attempt waited for its host's limit (NULL: no limit held it).
ALTER TABLE job_history ADD COLUMN limit_wait_ms bigint;

ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_action_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_action_check CHECK (action IN (
    'collection.put', 'collection.patch', 'collection.state', 'collection.delete',
    'collection.signing.put', 'collection.signing.delete',
    'job.put', 'job.patch', 'job.delete', 'job.enable', 'job.disable', 'job.run', 'job.rerun',
    'job.run.changes', 'job.backfill', 'job.backfill.cancel',
    'job.complete', 'job.fault',
    'calendar.put', 'calendar.delete', 'calendar.import',
    'import',
    'workspace.create', 'workspace.rename', 'workspace.delete',
    'member.put', 'member.remove',
    'channel.put', 'channel.delete', 'channel.test',
    'alert.put', 'alert.delete',
    'target.put', 'target.delete',
    'token.create', 'token.revoke',
    'user.create', 'user.disable', 'user.enable', 'user.password',
    'signin', 'signout'));
