-- 0007_calendars: named calendars of days on which the jobs that exclude
-- them do not run (SPEC §13.6), one set per workspace.

CREATE TABLE calendars (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    -- The name appears in URLs and in jobs' recurrence.calendars.exclude
    -- (jobdef.ValidCalendarName).
    name         text        NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    -- The calendar JSON in canonical form (models/caldef), without its name.
    definition   jsonb       NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
    -- Bumped on each change: compiled calendars are cached by it.
    version      bigint      NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    created_by   bigint      REFERENCES users (id) ON DELETE SET NULL,
    updated_by   bigint      REFERENCES users (id) ON DELETE SET NULL
);
-- Calendars are found by name (case-insensitive) and listed in name order
-- per workspace.
CREATE UNIQUE INDEX calendars_workspace_name_key ON calendars (workspace_id, lower(name));
-- Deleting a user clears these references.
CREATE INDEX calendars_created_by_idx ON calendars (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX calendars_updated_by_idx ON calendars (updated_by) WHERE updated_by IS NOT NULL;

-- The jobs that exclude a calendar (deleting a calendar in use is refused;
-- changing one re-plans its jobs): the lower-cased names of the job's
-- recurrence.calendars.exclude, matched with @>.
CREATE INDEX jobs_calendars_exclude_idx ON jobs USING gin
    ((lower((definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb));
