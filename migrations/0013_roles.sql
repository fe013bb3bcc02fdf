-- 0013_roles: roles per membership (reader < operator < editor < owner,
-- SPEC §13.4) and scoped API tokens.
--
-- Every existing member becomes an owner: before roles, a member could do
-- everything but manage members, and nobody should lose a right by an
-- upgrade. Owners can then lower the roles of others on the members page.
ALTER TABLE memberships DROP CONSTRAINT IF EXISTS memberships_role_check;
UPDATE memberships SET role = 'owner' WHERE role <> 'owner';
ALTER TABLE memberships ALTER COLUMN role SET DEFAULT 'reader';
ALTER TABLE memberships ADD CONSTRAINT memberships_role_check
    CHECK (role IN ('reader', 'operator', 'editor', 'owner'));

-- A token has a role (never more than its user's current role in a
-- workspace) and a scope: the workspaces it may touch, or NULL for all of
-- its user's workspaces; expires_at, when set, ends it. Existing tokens
-- keep what they could do: every workspace of their user, as owner.
-- workspaces holds the workspace ids separated by single spaces (ids have
-- none); a deleted workspace stays named and grants nothing.
ALTER TABLE api_tokens
    ADD COLUMN role       text NOT NULL DEFAULT 'owner'
        CHECK (role IN ('reader', 'operator', 'editor', 'owner')),
    ADD COLUMN workspaces text
        CHECK (workspaces ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,89}( [A-Za-z0-9][A-Za-z0-9._-]{0,89}){0,99}$'),
    ADD COLUMN expires_at timestamptz;
