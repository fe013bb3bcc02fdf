package models_test

import (
	"strings"
	"testing"
)

// TestEngineRowsIndexEntries: the running attempts and history entries the
// engine writes per execution feed no index that only rare reads need
// (migrations 0030 and 0031). The instances' queries on running attempts
// read job_attempts_running_idx, a job's open attempts are found on the
// unique key, and retention's delete of history by age reads a BRIN
// index.
func TestEngineRowsIndexEntries(t *testing.T) {
	store, db := storeAndDB(t)
	// A history as retention finds it: many entries, in time order.
	coll := newCollection(t, store, "rg", "jc")
	if _, err := db.Exec(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state)
			VALUES ($1, 'busy', $2::json, 'enabled') RETURNING id)
		INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message,
			retry_count, repeat_count)
		SELECT j.id, t, t, t, 'MainAction', 'Completed', '', 0, g
		FROM j, generate_series(1, 20000) g, LATERAL (SELECT now() - interval '30 days' + g * interval '1 minute') AS x(t)`,
		coll.ID, storedDef); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM ANALYZE job_history`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_indexes
		WHERE indexname IN ('job_attempts_owner_idx', 'job_attempts_finished_idx', 'job_history_start_idx',
			'job_attempts_finished_brin', 'job_attempts_open_idx')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d of the indexes migrations 0030 and 0031 drop are still there", n)
	}
	for q, index := range map[string]string{
		// Heartbeat: the attempts of dead instances.
		`SELECT a.id FROM engine_instances i JOIN job_attempts a ON a.lease_owner = i.id AND a.status = 'running'
			WHERE i.heartbeat_at < now() AND i.id <> 'me' AND a.lease_expires_at >= now()`: "job_attempts_running_idx",
		// RemoveInstance and pruneInstances: does an instance still hold attempts?
		`SELECT i.id FROM engine_instances i WHERE i.id = 'me' AND NOT EXISTS (
			SELECT 1 FROM job_attempts a WHERE a.lease_owner = i.id AND a.status = 'running')`: "job_attempts_running_idx",
		// A job's open attempts (the claim, the end of a job): the unique
		// key, job_id first.
		`SELECT count(*) FROM job_attempts o WHERE o.job_id = 1 AND o.status IN ('pending', 'running')`: "job_attempts_job_id_expected_time_action_attempt_key",
		// Retention (Prune) of the history stored before it was
		// partitioned by day (migration 0042): its until partition's
		// BRIN index. (The delete returns the entries' jobs and
		// statuses: no index holds them with the start.)
		`SELECT h.id, h.job_id, h.status FROM job_history h WHERE h.start_time < now() - interval '29 days'`: "_start_brin",
	} {
		if plan := planWithoutSeqScan(t, db, q); !strings.Contains(plan, index) {
			t.Errorf("%s\nthe plan does not use %s:\n%s", q, index, plan)
		}
	}
}
