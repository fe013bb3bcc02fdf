-- 0019_job_state_note: pause with a reason (SPEC §13.2). A disabled job
-- may carry a note (state_note, at most 500 characters, '' for none) with
-- who last changed its state or note and when (state_changed_by: the
-- user's name, '' when unknown; state_changed_at: NULL until a writer
-- changes the state). Enabling clears the note. Writers set all three
-- (models: SaveJob, SaveJobs, SetJobState, SetJobsState); the note is
-- checked in Go (models/jobdef.CheckStateNote); the CHECKs bound it.
ALTER TABLE jobs
    ADD COLUMN state_note text NOT NULL DEFAULT ''
        CONSTRAINT jobs_state_note_length CHECK (char_length(state_note) <= 500),
    ADD COLUMN state_changed_by text NOT NULL DEFAULT ''
        CONSTRAINT jobs_state_changed_by_length CHECK (char_length(state_changed_by) <= 200),
    ADD COLUMN state_changed_at timestamptz;

-- The search column of 0011 with the state note: "vendor" finds the jobs
-- paused for the vendor's maintenance. Re-created as 0011 says.
DROP INDEX jobs_search_trgm_idx;
ALTER TABLE jobs DROP COLUMN search;
ALTER TABLE jobs ADD COLUMN search text GENERATED ALWAYS AS (lower(
    name
    || ' ' || coalesce(definition -> 'action' -> 'request' ->> 'uri', '')
    || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'storageAccount', '')
    || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'queueName', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'namespace', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'queueName', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'namespace', '')
    || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'topicPath', '')
    || ' ' || coalesce(definition -> 'action' -> 'errorAction' -> 'request' ->> 'uri', '')
    || ' ' || state_note
)) STORED;
CREATE INDEX jobs_search_trgm_idx ON jobs USING gin (search gin_trgm_ops);
