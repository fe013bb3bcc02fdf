-- 0012_oidc: the OpenID Connect identities of users (SPEC §13.4, issue 15).
-- A user created by an OpenID Connect sign-in has an empty password_hash
-- (no password signs in as them) and one row here per provider subject.

CREATE TABLE user_identities (
    -- The provider's issuer URL and its subject ("sub"): together they
    -- name a person for good, whatever their email becomes.
    issuer          text        NOT NULL CHECK (length(issuer) BETWEEN 1 AND 2048),
    subject         text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    user_id         bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The email the provider last asserted, for people reading the users.
    email           text        NOT NULL DEFAULT '' CHECK (length(email) <= 320),
    created_at      timestamptz NOT NULL,
    last_sign_in_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user_id_idx ON user_identities (user_id);
