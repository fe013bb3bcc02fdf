-- 0004_history_status_idx: the dashboard's "recent failures" across every
-- job a user may see, newest first.
--
-- A partial index: only Failed entries are in it, so the engine's writes of
-- Completed entries (the bulk of the history) do not maintain it, and the
-- newest failures are the first rows of an ordered index scan however many
-- Completed entries lie between them.
CREATE INDEX job_history_failed_start_idx ON job_history (start_time DESC, id DESC) WHERE status = 'Failed';
