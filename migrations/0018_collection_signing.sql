-- 0018_collection_signing: a collection's optional signing secret (SPEC
-- §13.3, signed job requests). Every HTTP action of the collection's jobs
-- then carries the Standard Webhooks headers (webhook-id = the
-- Idempotency-Key). The secrets are sealed like a job's
-- (models/secretbox.go): a JSON object {"current": "whsec_…"} and, while a
-- rotation overlaps, {"previous": "whsec_…"} with previous_until, after
-- which the previous secret no longer signs. No row: unsigned.
CREATE TABLE collection_signing (
    job_collection_id bigint      PRIMARY KEY REFERENCES job_collections (id) ON DELETE CASCADE,
    secrets           bytea       NOT NULL,
    previous_until    timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    created_by        bigint      REFERENCES users (id) ON DELETE SET NULL,
    updated_by        bigint      REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX collection_signing_created_by_idx ON collection_signing (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX collection_signing_updated_by_idx ON collection_signing (updated_by) WHERE updated_by IS NOT NULL;
