-- 0009_one_clock: one clock decides every time (SPEC §12). The
-- jobs_schedule trigger of 0002 computed the engine's columns of jobs with
-- the database's now(): it set the schedule base, reset scheduled_count,
-- cleared or kept next_run_at and needs_schedule. Every writer now sets
-- those columns itself with its own clock (models: newJobSchedule for the
-- row it inserts, jobScheduleSet for the row it replaces; the engine's
-- planner for what it plans), and the trigger only wakes the engines.
--
-- Existing rows keep their meaning: the columns are unchanged.

CREATE OR REPLACE FUNCTION jobs_schedule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- An enabled job was created, or now waits to be scheduled, or got a
    -- new next run from its writer: the engines look again.
    IF NEW.state <> 'enabled' THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('sked_engine', '');
    ELSIF NEW.needs_schedule OR NEW.next_run_at IS DISTINCT FROM OLD.next_run_at THEN
        PERFORM pg_notify('sked_engine', '');
    END IF;
    RETURN NEW;
END $$;
