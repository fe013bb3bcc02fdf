-- 0039_job_triggers: jobs that run after other jobs (SPEC §17.1,
-- properties.trigger). Expand only: four new tables.
--
-- The definition (jobs.definition->'trigger') is the truth; the tables are
-- what the engine and the catalog need to act on it in SQL:
--
--  * job_trigger_upstreams: the edges of the workspace's graph, one row per
--    (downstream, upstream), rewritten by every write of the downstream's
--    definition (models.syncTriggers). No foreign key on upstream_id: a
--    write of a downstream must not lock its upstreams' rows (an engine
--    finishing an upstream holds it FOR UPDATE); a delete of an upstream is
--    refused while an edge names it (refuseDeletingUpstreams, under the
--    workspace's advisory lock that syncTriggers takes too).
--  * job_trigger_ends: the upstream ends that match a downstream's "on",
--    inserted by the transaction that records the upstream attempt
--    (FinishAttempts) and consumed by FireTriggers under the downstream's
--    row lock. No foreign keys: FinishAttempts locks no downstream row.
--  * job_trigger_waits: per downstream, the newest qualifying end of each
--    upstream since its last triggered run (fan-in).
--  * job_trigger_causes: which upstream ends triggered which run of the
--    downstream (its occurrence: job and expected time).

CREATE TABLE job_trigger_upstreams (
    downstream_id bigint  NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    upstream_id   bigint  NOT NULL,
    -- The index of the upstream in trigger.after.
    position      integer NOT NULL CHECK (position >= 0),
    on_status     text    NOT NULL CHECK (on_status IN ('succeeded', 'failed', 'finished')),
    PRIMARY KEY (downstream_id, upstream_id)
);
CREATE INDEX job_trigger_upstreams_upstream_idx ON job_trigger_upstreams (upstream_id);

CREATE TABLE job_trigger_ends (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    downstream_id bigint      NOT NULL,
    upstream_id   bigint      NOT NULL,
    -- The upstream's history entry of the attempt that ended its
    -- occurrence, and that attempt's end.
    history_id    bigint      NOT NULL,
    ended_at      timestamptz NOT NULL,
    succeeded     boolean     NOT NULL
);
CREATE INDEX job_trigger_ends_downstream_idx ON job_trigger_ends (downstream_id, id);

CREATE TABLE job_trigger_waits (
    downstream_id bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    upstream_id   bigint      NOT NULL,
    history_id    bigint      NOT NULL,
    ended_at      timestamptz NOT NULL,
    PRIMARY KEY (downstream_id, upstream_id)
);

CREATE TABLE job_trigger_causes (
    downstream_id       bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    -- The triggered run's occurrence: its attempts' and history entries'
    -- expected time.
    expected_time       timestamptz NOT NULL,
    upstream_id         bigint      NOT NULL,
    upstream_history_id bigint      NOT NULL,
    upstream_ended_at   timestamptz NOT NULL,
    PRIMARY KEY (downstream_id, expected_time, upstream_id)
);
CREATE INDEX job_trigger_causes_upstream_idx ON job_trigger_causes (upstream_history_id);
