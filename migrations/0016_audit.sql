-- 0016_audit: the audit log (SPEC §13.5), who changed what.
--
-- One row per change, appended in the transaction of the change itself
-- (models.Store.Audited, endJob). The log outlives what it names: no
-- foreign keys to workspaces, users or tokens, whose names are copied.
-- It is append-only: the trigger below refuses UPDATE and DELETE unless
-- the transaction set sked.audit_retention to 'on', which only the
-- retention (Store.Prune) does.
CREATE TABLE audit_entries (
    id             bigserial PRIMARY KEY,
    at             timestamptz NOT NULL,
    -- workspace_id is NULL for changes outside a workspace (users,
    -- tokens, sessions).
    workspace_id   text,
    -- actor_kind: a user at a page, a user's API token, the command line,
    -- the engine (a job completing or faulting), or an internal caller
    -- with no one known.
    actor_kind     text NOT NULL
        CHECK (actor_kind IN ('user', 'token', 'cli', 'engine', 'system')),
    actor_user_id  bigint,
    actor_name     text NOT NULL DEFAULT '',
    token_id       bigint,
    token_name     text NOT NULL DEFAULT '',
    via            text NOT NULL DEFAULT ''
        CHECK (via IN ('', 'api', 'web', 'cli', 'engine')),
    addr           text NOT NULL DEFAULT '',
    action         text NOT NULL CHECK (action IN (
        'collection.put', 'collection.patch', 'collection.state', 'collection.delete',
        'collection.signing.put', 'collection.signing.delete',
        'job.put', 'job.patch', 'job.delete', 'job.enable', 'job.disable', 'job.run', 'job.rerun',
        'job.complete', 'job.fault',
        'calendar.put', 'calendar.delete', 'calendar.import',
        'import',
        'workspace.create', 'workspace.rename', 'workspace.delete',
        'member.put', 'member.remove',
        'channel.put', 'channel.delete', 'channel.test',
        'alert.put', 'alert.delete',
        'token.create', 'token.revoke',
        'user.create', 'user.disable', 'user.enable', 'user.password',
        'signin', 'signout')),
    -- resource is the path of what changed inside its workspace, e.g.
    -- resourceGroups/rg/jobCollections/c/jobs/j (models.AuditResource*).
    resource       text NOT NULL DEFAULT '',
    detail         text NOT NULL DEFAULT '',
    -- diff is the before/after difference of a definition, secrets
    -- masked: [{"path": "...", "old": <json text>, "new": <json text>}].
    diff           jsonb NOT NULL DEFAULT '[]'::jsonb
        CHECK (jsonb_typeof(diff) = 'array')
);

-- The audit page and API: a workspace's entries newest first (keyset on
-- id), filtered by actor, resource (a prefix) and action.
CREATE INDEX audit_entries_workspace_idx ON audit_entries (workspace_id, id DESC);
CREATE INDEX audit_entries_resource_idx ON audit_entries (workspace_id, resource text_pattern_ops, id DESC);
CREATE INDEX audit_entries_actor_idx ON audit_entries (workspace_id, actor_name, id DESC);
CREATE INDEX audit_entries_action_idx ON audit_entries (workspace_id, action, id DESC);
-- The retention.
CREATE INDEX audit_entries_at_idx ON audit_entries (at);

CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('sked.audit_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_entries is append-only (%)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();

CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_append_only();
