-- 0020_execution_details: what an execution's detail page shows (SPEC §9,
-- issue 16): the request sent and the response received, masked and
-- capped before they are stored; the instance that ran the attempt and
-- its due, claim and send times; and the re-runs of failed occurrences.

-- A re-run is a new run of an occurrence's main action started by a
-- person: rerun_of is the history entry it re-runs (no foreign key:
-- retention may delete that entry first), rerun_by who asked for it.
-- attempt_base is the attempt number of the first attempt of this run of
-- the action (1, or a re-run's first attempt): the retry policy counts
-- attempts from it, so a re-run gets the whole retry policy again.
ALTER TABLE job_attempts
    ADD COLUMN rerun_of     bigint,
    ADD COLUMN rerun_by     text CHECK (length(rerun_by) <= 255),
    ADD COLUMN attempt_base integer NOT NULL DEFAULT 1 CHECK (attempt_base >= 1 AND attempt_base <= attempt);

ALTER TABLE job_history
    ADD COLUMN rerun_of bigint,
    ADD COLUMN rerun_by text CHECK (length(rerun_by) <= 255);

-- One row per history entry written by the engine for an attempt. The
-- request and response are JSON documents with their secrets masked by
-- the engine before they get here (scheduler/action Exchange): request
-- {method, url, headers: [{name, value}], body, bodyTruncated,
-- clientCertificate}; response {status, headers, body, bodyTruncated}.
-- The caps (request body 8 KiB, response body 2,048 bytes, headers 8 KiB
-- each side, URL 2 KiB) are applied by the engine; the CHECKs bound what
-- any writer may store.
CREATE TABLE job_history_details (
    history_id      bigint      PRIMARY KEY REFERENCES job_history (id) ON DELETE CASCADE,
    instance        text        CHECK (length(instance) <= 255),
    due_at          timestamptz,
    claimed_at      timestamptz,
    sent_at         timestamptz,
    idempotency_key text        CHECK (length(idempotency_key) <= 255),
    request         jsonb       CHECK (octet_length(request::text) <= 65536),
    response        jsonb       CHECK (octet_length(response::text) <= 65536)
);

-- The running attempts of a workspace (the running-now page) are found
-- through job_attempts_running_idx (status = 'running'); the history
-- entries of one occurrence (whether it may be re-run) through this one.
CREATE INDEX job_history_occurrence_idx ON job_history (job_id, expected_execution_time);
