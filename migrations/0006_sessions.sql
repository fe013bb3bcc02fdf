-- 0006_sessions: server-side sessions (the cookie holds only a random id,
-- kept here as its SHA-256) and the one-time codes of the first-run setup.

CREATE TABLE sessions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash   bytea       NOT NULL CHECK (length(token_hash) = 32),
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   text        NOT NULL CHECK (length(csrf_token) BETWEEN 32 AND 128),
    created_at   timestamptz NOT NULL,
    -- Written at most once a minute per session, not on every request.
    last_seen_at timestamptz NOT NULL,
    -- The absolute end: created_at plus the maximum age at sign-in.
    expires_at   timestamptz NOT NULL,
    remote_addr  text        NOT NULL DEFAULT '' CHECK (length(remote_addr) <= 64),
    user_agent   text        NOT NULL DEFAULT '' CHECK (length(user_agent) <= 512),
    -- Messages kept for the next page after a redirect ("flashes"), one a
    -- line; empty when there are none.
    flash        text        NOT NULL DEFAULT '' CHECK (length(flash) <= 4000),
    CHECK (last_seen_at >= created_at),
    CHECK (expires_at > created_at)
);
-- Every request finds its session by the hash of the cookie's id.
CREATE UNIQUE INDEX sessions_token_hash_key ON sessions (token_hash);
-- "Your sessions" lists a user's sessions, newest use first; sign-out
-- everywhere, a password change or reset and disabling delete them.
CREATE INDEX sessions_user_id_idx ON sessions (user_id, last_seen_at DESC);
-- The purge deletes sessions past their absolute end or idle too long.
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
CREATE INDEX sessions_last_seen_at_idx ON sessions (last_seen_at);

-- While no administrator exists, each `sked serve` prints a setup code in
-- its log and keeps its SHA-256 here, so that any instance accepts the
-- code of any other. Completing the setup deletes them all.
CREATE TABLE setup_codes (
    code_hash  bytea       PRIMARY KEY CHECK (length(code_hash) = 32),
    created_at timestamptz NOT NULL
);
