-- 0032_instance_versions: every engine instance records, with each
-- heartbeat, the release it runs and the newest migration it knows, so
-- that a rolling upgrade can tell which releases are alive on the database
-- and a contracting migration can wait until no older instance is
-- (migrations/README.md). Instances of the previous release do not name
-- these columns; their rows keep the defaults, which mean "unknown, older".

ALTER TABLE engine_instances
    -- The instance's release (`sked version`); '' for an older release.
    ADD COLUMN version        text    NOT NULL DEFAULT '' CHECK (length(version) <= 255),
    -- The newest migration the instance's release knows; 0 for an older
    -- release.
    ADD COLUMN schema_version integer NOT NULL DEFAULT 0 CHECK (schema_version >= 0);
