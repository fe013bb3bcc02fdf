-- 0017_notify_delivery: what the engine needs to create notifications in
-- the transactions that write the history causing them (SPEC §13.3).

-- The faulted occurrences of a job in a row: +1 when an occurrence's main
-- action faults, 0 again when an occurrence ends without a fault. A rule's
-- consecutiveFailures fires when it reaches the rule's threshold; recovered
-- when an occurrence ends well while it is above 0.
ALTER TABLE jobs ADD COLUMN consecutive_faults integer NOT NULL DEFAULT 0 CHECK (consecutive_faults >= 0);

-- The minInterval window of one alert rule for one job: an event before
-- window_until is held back and counted in the pending digest (a
-- notification due when the window ends); the digest opens the next
-- window. Deleted with the rule or the job; windows long over are pruned.
CREATE TABLE notification_throttles (
    rule_id      bigint      NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    job_id       bigint      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    window_until timestamptz NOT NULL,
    digest_id    bigint      REFERENCES notifications (id) ON DELETE SET NULL,
    PRIMARY KEY (rule_id, job_id)
);
CREATE INDEX notification_throttles_job_idx ON notification_throttles (job_id);
CREATE INDEX notification_throttles_digest_idx ON notification_throttles (digest_id) WHERE digest_id IS NOT NULL;
-- Retention of windows long over.
CREATE INDEX notification_throttles_window_idx ON notification_throttles (window_until);
-- Deleting a rule sets its notifications' rule_id to NULL.
CREATE INDEX notifications_rule_idx ON notifications (rule_id) WHERE rule_id IS NOT NULL;
