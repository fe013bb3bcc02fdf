-- 0002_engine: what the execution engine needs (SPEC §4).
--
-- The engine owns jobs.next_run_at. A job is (re)scheduled from a moment
-- called its schedule base: its creation, the replacement of its
-- definition, or its re-enabling. The trigger below marks such jobs with
-- needs_schedule and notifies the engines; an engine then computes
-- next_run_at with the recurrence rule compiled for schedule_base.

ALTER TABLE jobs
    -- The moment the job's rule is compiled for ("created" in SPEC §2).
    ADD COLUMN schedule_base           timestamptz,
    -- The engine still has to compute next_run_at from schedule_base.
    ADD COLUMN needs_schedule          boolean NOT NULL DEFAULT false,
    -- Occurrences taken from the schedule since the schedule base's
    -- definition was set: what recurrence.count limits.
    ADD COLUMN scheduled_count         bigint  NOT NULL DEFAULT 0 CHECK (scheduled_count >= 0),
    -- Occurrences started, scheduled or run now: the history's repeatCount.
    ADD COLUMN occurrence_count        bigint  NOT NULL DEFAULT 0 CHECK (occurrence_count >= 0),
    -- Whether the most recently ended occurrence faulted (decides completed
    -- or faulted when the job runs out of occurrences).
    ADD COLUMN last_occurrence_faulted boolean NOT NULL DEFAULT false;

-- Jobs waiting for their first (or a new) next_run_at.
CREATE INDEX jobs_needs_schedule_idx ON jobs (id) WHERE needs_schedule;

-- One row per execution attempt, including the pending ones (retries, error
-- actions, run-now requests): a pending retry is stored, not held in memory.
-- The unique key makes a second run of one attempt of one occurrence
-- impossible, even when instances race.
CREATE TABLE job_attempts (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id           bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    expected_time    timestamptz NOT NULL,
    action           text        NOT NULL CHECK (action IN ('MainAction', 'ErrorAction')),
    attempt          integer     NOT NULL CHECK (attempt >= 1),
    occurrence       bigint      NOT NULL CHECK (occurrence >= 0),
    status           text        NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
    due_at           timestamptz NOT NULL,
    lease_owner      text,
    lease_expires_at timestamptz,
    started_at       timestamptz,
    finished_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (job_id, expected_time, action, attempt),
    CHECK ((status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
);
-- Due pending attempts, earliest first.
CREATE INDEX job_attempts_pending_idx ON job_attempts (due_at) WHERE status = 'pending';
-- Expired leases, earliest first.
CREATE INDEX job_attempts_running_idx ON job_attempts (lease_expires_at) WHERE status = 'running';
-- Open attempts of one job (overlap, final state).
CREATE INDEX job_attempts_open_idx ON job_attempts (job_id) WHERE status IN ('pending', 'running');
-- Retention of finished attempts.
CREATE INDEX job_attempts_finished_idx ON job_attempts (finished_at) WHERE finished_at IS NOT NULL;

ALTER TABLE job_history
    -- How late the attempt started, in milliseconds, after its due time.
    ADD COLUMN lateness_ms bigint,
    -- The attempt (job_attempts.id, sent as x-ms-scheduler-execution-tag).
    ADD COLUMN attempt_id  bigint;
-- Retention deletes old history by start time.
CREATE INDEX job_history_start_idx ON job_history (start_time);

-- jobs_schedule keeps the engine's columns consistent whoever writes a job:
-- creating, replacing the definition of or re-enabling an enabled job
-- schedules it from now (unless the writer supplied a new next_run_at; a
-- writer may also supply the schedule base, as the engine does with its
-- clock);
-- any other state clears next_run_at; rewriting an enabled job unchanged
-- keeps its schedule. It notifies the engines on channel sked_engine.
CREATE FUNCTION jobs_schedule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state <> 'enabled' THEN
        NEW.next_run_at := NULL;
        NEW.needs_schedule := false;
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        NEW.schedule_base := coalesce(NEW.schedule_base, now());
        NEW.needs_schedule := NEW.next_run_at IS NULL;
        PERFORM pg_notify('sked_engine', '');
        RETURN NEW;
    END IF;
    IF OLD.state <> 'enabled' OR NEW.definition::text IS DISTINCT FROM OLD.definition::text THEN
        IF NEW.schedule_base IS NOT DISTINCT FROM OLD.schedule_base THEN
            NEW.schedule_base := now();
        END IF;
        IF NEW.definition::text IS DISTINCT FROM OLD.definition::text THEN
            NEW.scheduled_count := 0;
        END IF;
        IF NEW.next_run_at IS NULL OR NEW.next_run_at IS NOT DISTINCT FROM OLD.next_run_at THEN
            NEW.next_run_at := NULL;
            NEW.needs_schedule := true;
        ELSE
            NEW.needs_schedule := false;
        END IF;
        PERFORM pg_notify('sked_engine', '');
    ELSE
        NEW.next_run_at := OLD.next_run_at;
        NEW.needs_schedule := OLD.needs_schedule;
        NEW.schedule_base := OLD.schedule_base;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER jobs_schedule BEFORE INSERT OR UPDATE OF definition, state ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_schedule();

-- jobs_abandon drops the pending attempts (retries, error actions, run-now
-- requests) of a job that stops being enabled: a disabled job runs nothing.
CREATE FUNCTION jobs_abandon() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_attempts WHERE job_id = NEW.id AND status = 'pending';
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_abandon AFTER UPDATE OF state ON jobs
    FOR EACH ROW WHEN (OLD.state = 'enabled' AND NEW.state <> 'enabled')
    EXECUTE FUNCTION jobs_abandon();

-- job_collections_notify wakes the engines when a collection is enabled
-- again, so that its jobs' missed occurrences are handled at once.
CREATE FUNCTION job_collections_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('sked_engine', '');
    RETURN NULL;
END $$;

CREATE TRIGGER job_collections_notify AFTER UPDATE OF state ON job_collections
    FOR EACH ROW WHEN (NEW.state = 'Enabled' AND OLD.state <> 'Enabled')
    EXECUTE FUNCTION job_collections_notify();
