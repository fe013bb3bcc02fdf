-- 0035_backfill_run_changes: backfills (SPEC §16.3) and runs with changes
-- (SPEC §16.4).
--
-- Expand only: new tables and nullable columns, and a wider CHECK of the
-- audit log's actions. The previous release leaves the new columns NULL
-- (an attempt without changes, not part of a backfill) and never writes
-- the new actions.

-- A run with changes: the attempt carries its changes of the request
-- (headers, body) as given, which the engine applies, and the same with
-- secret header values masked, which its history entries keep. Retries of
-- the run carry both. backfill_id is the backfill that queued the attempt.
ALTER TABLE job_attempts
    ADD COLUMN changes jsonb,
    ADD COLUMN changes_shown jsonb,
    ADD COLUMN backfill_id bigint;

ALTER TABLE job_history
    ADD COLUMN changes jsonb,
    ADD COLUMN backfill_id bigint;

-- A backfill: the occurrences of a job in [from_time, to_time) run again
-- (or for the first time), at most max_concurrent at once. total counts the
-- runs it queued, skipped the occurrences it left out.
CREATE TABLE backfills (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id   text NOT NULL,
    job_id         bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    from_time      timestamptz NOT NULL,
    to_time        timestamptz NOT NULL,
    only_runs      text NOT NULL CHECK (only_runs IN ('missing', 'failed', 'all')),
    run_order      text NOT NULL CHECK (run_order IN ('oldestFirst', 'newestFirst')),
    max_concurrent integer NOT NULL CHECK (max_concurrent BETWEEN 1 AND 20),
    state          text NOT NULL CHECK (state IN ('running', 'done', 'cancelled')),
    total          integer NOT NULL CHECK (total >= 0),
    skipped        integer NOT NULL CHECK (skipped >= 0),
    created_by     text NOT NULL DEFAULT '' CHECK (length(created_by) <= 255),
    created_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    CHECK (to_time > from_time)
);
CREATE INDEX backfills_job_idx ON backfills (job_id, id DESC);
-- The heartbeat's refill (models.Store.FeedBackfills) reads the running ones.
CREATE INDEX backfills_running_idx ON backfills (id) WHERE state = 'running';

-- One row per occurrence a backfill runs: queued (not started yet),
-- started (its attempts are open), then succeeded, failed or cancelled.
-- An occurrence is queued or started by one backfill at a time.
CREATE TABLE backfill_runs (
    backfill_id   bigint NOT NULL REFERENCES backfills (id) ON DELETE CASCADE,
    job_id        bigint NOT NULL,
    expected_time timestamptz NOT NULL,
    state         text NOT NULL CHECK (state IN ('queued', 'started', 'succeeded', 'failed', 'cancelled')),
    PRIMARY KEY (backfill_id, expected_time)
);
CREATE UNIQUE INDEX backfill_runs_open_key ON backfill_runs (job_id, expected_time)
    WHERE state IN ('queued', 'started');
CREATE INDEX backfill_runs_state_idx ON backfill_runs (backfill_id, state, expected_time);
-- ... and the cancelled ones whose started runs have not ended.
CREATE INDEX backfill_runs_started_idx ON backfill_runs (backfill_id) WHERE state = 'started';

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
    'token.create', 'token.revoke',
    'user.create', 'user.disable', 'user.enable', 'user.password',
    'signin', 'signout'));
