-- 0021_collection_state_note: pause a job collection with a reason (SPEC
-- §13.2), as 0019 does for jobs. A disabled or suspended collection may
-- carry a note (state_note, at most 500 characters, '' for none) with who
-- last changed its state or note and when (state_changed_by: the user's
-- name, '' when unknown; state_changed_at: NULL until a writer changes
-- the state). Enabling clears the note. Writers set all three (models:
-- PutCollection, SetCollectionStateNote); the note is checked in Go
-- (models/jobdef.CheckStateNote); the CHECKs bound it.
ALTER TABLE job_collections
    ADD COLUMN state_note text NOT NULL DEFAULT ''
        CONSTRAINT job_collections_state_note_length CHECK (char_length(state_note) <= 500),
    ADD COLUMN state_changed_by text NOT NULL DEFAULT ''
        CONSTRAINT job_collections_state_changed_by_length CHECK (char_length(state_changed_by) <= 200),
    ADD COLUMN state_changed_at timestamptz;
