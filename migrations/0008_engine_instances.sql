-- 0008_engine_instances: every running engine instance renews a heartbeat
-- here every few seconds (scheduler.Config.HeartbeatInterval). When an
-- instance's heartbeat stops (kill -9, a lost machine), the other instances
-- recover its running attempts within seconds (scheduler.Config.DeadAfter)
-- instead of waiting for their leases (the action's timeout plus 30 s) to
-- expire. A graceful stop deletes the instance's row.

CREATE TABLE engine_instances (
    -- scheduler.Config.InstanceID: job_attempts.lease_owner of its attempts.
    id           text        PRIMARY KEY CHECK (id <> '' AND length(id) <= 255),
    -- The instance's first heartbeat.
    started_at   timestamptz NOT NULL,
    -- Its latest heartbeat, by its own clock.
    heartbeat_at timestamptz NOT NULL
);
-- Instances whose heartbeat stopped, oldest first.
CREATE INDEX engine_instances_heartbeat_idx ON engine_instances (heartbeat_at);
-- The running attempts of one instance (recovery when it died; whether a
-- stopping instance still holds any).
CREATE INDEX job_attempts_owner_idx ON job_attempts (lease_owner) WHERE status = 'running';
