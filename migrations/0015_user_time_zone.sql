-- 0015_user_time_zone: each user's time zone preference, in which the
-- dashboard shows its activity chart and failure times (UTC until the user
-- picks another on the /account page). The name (IANA or Windows) is
-- validated in Go (models.Store.SetUserTimeZone); the CHECK only bounds its
-- length.

ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'
    CONSTRAINT users_time_zone_length CHECK (length(time_zone) BETWEEN 1 AND 64);
