-- 0033_migration_release: schema_migrations records which release applied
-- each migration, so that an instance of an older release that finds a
-- newer schema can say which release it needs (models.SchemaTooNewError).
-- Expand only: the previous release inserts (version, name) and gets the
-- default; schema_migrations itself is created by the migration runner.

ALTER TABLE schema_migrations
    -- The release (`sked version`) that applied the migration; '' when
    -- unknown (a release older than this migration, or a build without a
    -- version).
    ADD COLUMN applied_by text NOT NULL DEFAULT '';
