-- 0003_api: what the REST API, secrets at rest and import need.

-- The job's secrets (passwords, pfx, OAuth secret, SAS token and key),
-- sealed with AES-256-GCM; the definition itself never holds them.
ALTER TABLE jobs ADD COLUMN secrets bytea;

-- History is filtered by status per job.
CREATE INDEX job_history_job_status_start_idx ON job_history (job_id, status, start_time DESC, id DESC);
