package testdb

import (
	"database/sql"
	"testing"
)

// The checkers of what the store derives from jobs, for tests that write
// in any way (one by one, concurrently) and then compare the derived rows
// with the jobs they derive from.

// CheckRollups fails t when a rollup the store maintains with its writes
// (collection_job_counts, history_hours, job_results' last status and
// last failure) differs from what count(*) finds in db; at names the
// moment in its messages (a round of writes).
func CheckRollups(t testing.TB, db *sql.DB, at string) {
	t.Helper()
	checks := []struct{ what, query string }{
		{"collection_job_counts", `
			WITH want AS (SELECT c.id,
			         count(j.id) FILTER (WHERE j.state = 'enabled') AS e, count(j.id) FILTER (WHERE j.state = 'disabled') AS d,
			         count(j.id) FILTER (WHERE j.state = 'completed') AS c, count(j.id) FILTER (WHERE j.state = 'faulted') AS f
			       FROM job_collections c LEFT JOIN jobs j ON j.job_collection_id = c.id GROUP BY c.id)
			SELECT count(*) FROM want w LEFT JOIN collection_job_counts k ON k.job_collection_id = w.id
			WHERE (coalesce(k.enabled, 0), coalesce(k.disabled, 0), coalesce(k.completed, 0), coalesce(k.faulted, 0)) <> (w.e, w.d, w.c, w.f)`},
		{"history_hours", `
			WITH want AS (SELECT rg.workspace_id, date_trunc('hour', h.start_time) AS hour, h.status, count(*) AS n
			       FROM job_history h JOIN jobs j ON j.id = h.job_id JOIN job_collections c ON c.id = j.job_collection_id
			       JOIN resource_groups rg ON rg.id = c.resource_group_id WHERE h.status <> 'Running' GROUP BY 1, 2, 3),
			     got AS (SELECT workspace_id, hour, status, sum(count) AS n FROM history_hours
			             GROUP BY 1, 2, 3 HAVING sum(count) <> 0)
			SELECT count(*) FROM want FULL JOIN got USING (workspace_id, hour, status)
			WHERE want.n IS DISTINCT FROM got.n`},
		{"job_results.last_status", `
			SELECT count(*) FROM job_results r JOIN jobs j ON j.id = r.job_id
			JOIN LATERAL (SELECT h.status, h.start_time FROM job_history h WHERE h.job_id = j.id AND h.status <> 'Running'
			              ORDER BY h.start_time DESC, h.id DESC LIMIT 1) h ON true
			WHERE r.last_status IS DISTINCT FROM h.status OR r.last_status_at IS DISTINCT FROM h.start_time`},
		// Retention may delete a job's newest failure, which stays its last
		// one: last_failed_at is at least its newest Failed entry's start.
		{"job_results.last_failed_at", `
			SELECT count(*) FROM job_results r JOIN jobs j ON j.id = r.job_id
			JOIN LATERAL (SELECT max(h.start_time) AS t FROM job_history h WHERE h.job_id = j.id AND h.status = 'Failed') h ON true
			WHERE h.t IS NOT NULL AND (r.last_failed_at IS NULL OR r.last_failed_at < h.t)`},
	}
	for _, c := range checks {
		var bad int
		if err := db.QueryRow(c.query).Scan(&bad); err != nil {
			t.Fatalf("%s: %s: %v", at, c.what, err)
		}
		if bad != 0 {
			t.Errorf("%s: %s: %d rows differ from count(*)", at, c.what, bad)
		}
	}
	var jobs, hist int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM job_history)`).Scan(&jobs, &hist); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d jobs, %d history entries", at, jobs, hist)
}

// CheckFacets fails t when a job lacks its job_facets row or a row
// differs from what job_facets_derived computes from the job now.
func CheckFacets(t testing.TB, db *sql.DB) {
	t.Helper()
	var missing, stale, jobs int64
	err := db.QueryRow(`SELECT
			(SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM job_facets f WHERE f.job_id = j.id)),
			(SELECT count(*) FROM job_facets f JOIN job_facets_derived d ON d.job_id = f.job_id
			 WHERE (f.search, f.time_zone, f.calendar_excludes) IS DISTINCT FROM (d.search, d.time_zone, d.calendar_excludes)),
			(SELECT count(*) FROM jobs)`).Scan(&missing, &stale, &jobs)
	if err != nil {
		t.Fatal(err)
	}
	if missing != 0 || stale != 0 {
		t.Errorf("of %d jobs, %d lack their facets and %d have stale ones", jobs, missing, stale)
	}
}
