-- 0005_history_hours: the dashboard's picture of the last 24 hours counts
-- executions per hour. Counting a busy hour again on every visit is slow
-- (100,000 jobs run hourly make 100,000 entries an hour), so the counts of
-- hours that can no longer change are kept here, per workspace, the first
-- time a dashboard needs them.

CREATE TABLE history_hours (
    workspace_id    text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    hour            timestamptz NOT NULL,
    status          text        NOT NULL CHECK (status IN ('Completed', 'Failed', 'Postponed')),
    count           bigint      NOT NULL CHECK (count >= 0),
    max_lateness_ms bigint,
    PRIMARY KEY (workspace_id, hour, status)
);

-- The hours counted: an hour without executions has no history_hours row
-- but has one here.
CREATE TABLE history_hours_done (
    workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    hour         timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, hour)
);
