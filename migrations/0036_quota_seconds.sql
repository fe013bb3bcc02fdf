-- 0036_quota_seconds: a collection's maxRecurrence may be given in seconds
-- (SPEC §16.5, {"frequency": "second", "interval": 10}).
--
-- Expanding: the CHECK only admits one more value. A previous release
-- reading a collection whose quota is in seconds takes its interval as
-- minutes (models.Recurrence.Shortest's default): stricter, so during a
-- rollout an older instance may refuse a job a newer one accepts, never
-- the reverse.
ALTER TABLE job_collections DROP CONSTRAINT job_collections_max_recurrence_frequency_check;
ALTER TABLE job_collections ADD CONSTRAINT job_collections_max_recurrence_frequency_check
    CHECK (max_recurrence_frequency IN ('second', 'minute', 'hour', 'day', 'week', 'month', 'year'));
