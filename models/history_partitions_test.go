package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// partitionsOf returns the names of table's partitions, sorted.
func partitionsOf(t testing.TB, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = $1::regclass ORDER BY 1`, table)
	return strings.Split(planLines(t, rows, err), "\n") // a column of text, one row a line
}

// seedHistory inserts, for the job jobID, one finished entry with its
// details at each of starts (Failed when failed says so), with their
// history_hours counts as the engine adds them.
func seedHistory(t testing.TB, db *sql.DB, jobID int64, starts []time.Time, status string) {
	t.Helper()
	for _, s := range starts {
		_, err := db.Exec(`
			WITH h AS (
				INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
				VALUES ($1, $2, $2, $2, 'MainAction', $3, 'seeded') RETURNING id, start_time),
			d AS (INSERT INTO job_history_details (history_id, start_time, instance) SELECT id, start_time, 'seed' FROM h)
			INSERT INTO history_hours (workspace_id, hour, status, slot, count)
			SELECT rg.workspace_id, date_trunc('hour', $2::timestamptz), $3, 0, 1
			FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups rg ON rg.id = c.resource_group_id
			WHERE j.id = $1
			ON CONFLICT (workspace_id, hour, status, slot) DO UPDATE SET count = history_hours.count + 1`, jobID, s, status)
		if err == nil {
			_, err = db.Exec(`UPDATE job_results SET
				last_status = CASE WHEN last_status_at IS NULL OR $2 >= last_status_at THEN $3 ELSE last_status END,
				last_status_at = greatest(last_status_at, $2),
				last_failed_at = CASE WHEN $3 = 'Failed' THEN greatest(last_failed_at, $2) ELSE last_failed_at END
				WHERE job_id = $1`, jobID, s, status)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryPartitionsCreatedAhead: the engines create the history's and
// the details' day partitions from the current day through HistoryDaysAhead
// days after it, each once however many create at once, and leave a day
// whose entries the default partition already holds to it.
func TestHistoryPartitionsCreatedAhead(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	now := time.Date(2031, 1, 10, 15, 4, 5, 0, time.UTC)
	coll := newCollection(t, store, "rg", "jc")
	job := insertJob(t, store, coll.ID, "entries")
	// An entry 3 days ahead, before its day's partition exists: the
	// default partition holds it, and keeps its day.
	seedHistory(t, db, job, []time.Time{now.Add(72 * time.Hour)}, "Completed")

	var wg sync.WaitGroup
	created := make([]int, 20)
	errs := make([]error, 20)
	for i := range 20 {
		wg.Go(func() { created[i], errs[i] = store.EnsureHistoryPartitions(ctx, now) })
	}
	wg.Wait()
	total := 0
	for i := range 20 {
		if errs[i] != nil {
			t.Fatalf("EnsureHistoryPartitions %d: %v", i, errs[i])
		}
		total += created[i]
	}
	// 8 days of 2 tables, but for the 13th, whose entry (and its details)
	// the default partitions hold.
	if want := 2 * models.HistoryDaysAhead; total != want {
		t.Errorf("created %d partitions, want %d", total, want)
	}
	hist, det := partitionsOf(t, db, "job_history"), partitionsOf(t, db, "job_history_details")
	for d := range models.HistoryDaysAhead + 1 {
		day := now.AddDate(0, 0, d).Format("20060102")
		if want := d != 3; slices.Contains(hist, "job_history_"+day) != want {
			t.Errorf("job_history_%s exists: %v, want %v (%v)", day, !want, want, hist)
		}
		if !slices.Contains(det, "job_history_details_"+day) && d != 3 {
			t.Errorf("job_history_details_%s missing: %v", day, det)
		}
	}
	if n, err := store.EnsureHistoryPartitions(ctx, now); err != nil || n != 0 {
		t.Errorf("a second pass created %d partitions (%v), want none", n, err)
	}
	// Entries land in their day's partition from now on.
	seedHistory(t, db, job, []time.Time{now.Add(time.Hour)}, "Completed")
	var part string
	if err := db.QueryRow(`SELECT tableoid::regclass::text FROM job_history WHERE start_time = $1`, now.Add(time.Hour)).Scan(&part); err != nil {
		t.Fatal(err)
	}
	if part != "job_history_20310110" {
		t.Errorf("an entry of 2031-01-10 is in %s", part)
	}
}

// insertJobs saves n enabled jobs named j0, j1, … into the collection
// collID and returns their ids in that order.
func insertJobs(t testing.TB, store *models.Store, collID int64, n int) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = insertJob(t, store, collID, fmt.Sprintf("j%d", i))
	}
	return ids
}

// partitionedStore returns a store on a new database with the history's
// day partitions from day on (EnsureHistoryPartitions) and a collection
// rg/jc, and a connection to the database.
func partitionedStore(t testing.TB, day time.Time) (*models.Store, *sql.DB, *models.JobCollection) {
	t.Helper()
	store, db := storeAndDB(t)
	if _, err := store.EnsureHistoryPartitions(context.Background(), day); err != nil {
		t.Fatal(err)
	}
	return store, db, newCollection(t, store, "rg", "jc")
}

// insertJob saves an enabled job named name into the collection collID
// and returns its id.
func insertJob(t testing.TB, store *models.Store, collID int64, name string) int64 {
	t.Helper()
	j, _, err := store.SaveJob(context.Background(), models.JobWrite{CollectionID: collID, Name: name, Definition: []byte(storedDef)})
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// TestHistoryRetentionDropsDays: retention by age drops the days older than
// the retention whole, the history's and the details' partitions, and
// takes their entries out of history_hours; it keeps the day the cut falls
// in, a day holding a running record, and everything newer; the stored
// history's until partition and the default one are pruned row by row.
func TestHistoryRetentionDropsDays(t *testing.T) {
	// history_hours' hours are the sessions' time zone's: in one whose
	// hours start off the UTC hour, a day's first and last hours are
	// shared with the days beside it.
	for _, zone := range []string{"UTC", "Asia/Kolkata"} {
		t.Run(zone, func(t *testing.T) { retentionDropsDays(t, zone) })
	}
}

// storeInZone returns a store on a new database whose sessions are all in
// the time zone zone, and a connection to the database in that zone.
func storeInZone(t *testing.T, zone string) (*models.Store, *sql.DB) {
	t.Helper()
	dsn := testdb.DSN(t)
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "timezone=" + url.QueryEscape(zone)
	} else {
		dsn += " timezone=" + zone
	}
	store := testdb.Open(t, dsn, testdb.Options())
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var got string
	if err := db.QueryRow(`SHOW timezone`).Scan(&got); err != nil || got != zone {
		t.Fatalf("the session's time zone is %q (%v), want %s", got, err, zone)
	}
	return store, db
}

// retentionDropsDays is TestHistoryRetentionDropsDays with every session
// in zone.
func retentionDropsDays(t *testing.T, zone string) {
	store, db := storeInZone(t, zone)
	ctx := context.Background()
	day0 := time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := store.EnsureHistoryPartitions(ctx, day0); err != nil {
		t.Fatal(err)
	}
	coll := newCollection(t, store, "rg", "jc")
	job := insertJob(t, store, coll.ID, "daily")
	other := insertJob(t, store, coll.ID, "running")
	var starts []time.Time
	for d := range 5 { // 2031-03-01 … 03-05, four entries a day
		for h := range 4 {
			starts = append(starts, day0.AddDate(0, 0, d).Add(time.Duration(h*6)*time.Hour+time.Minute))
		}
	}
	seedHistory(t, db, job, starts, "Completed")
	// Stored before the partitions (the until partition) and beyond them
	// (the default one).
	old := time.Now().AddDate(0, -6, 0)
	seedHistory(t, db, job, []time.Time{old}, "Failed")
	seedHistory(t, db, job, []time.Time{day0.AddDate(0, 1, 0)}, "Completed")
	// A running record on 03-02 holds its day.
	if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status,
			lease_owner, lease_expires_at) VALUES ($1, $2, $2, 'MainAction', 'Running', 'x', $2::timestamptz + interval '1 hour')`,
		other, day0.AddDate(0, 0, 1).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	testdb.CheckRollups(t, db, "seeded")

	// The cut on 03-04 at noon: 03-01 and 03-03 go whole, 03-02 stays
	// for its running record, 03-04 stays (the cut falls in it).
	now := day0.AddDate(0, 0, 3).Add(12*time.Hour).AddDate(0, 0, 30)
	st, err := store.Prune(ctx, now, models.Retention{HistoryMaxAge: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if st.History != 4+4+1 {
		t.Errorf("pruned %d entries, want 9 (two days of 4, the stored one)", st.History)
	}
	hist := partitionsOf(t, db, "job_history")
	for day, want := range map[string]bool{"20310301": false, "20310302": true, "20310303": false, "20310304": true, "20310305": true} {
		if slices.Contains(hist, "job_history_"+day) != want {
			t.Errorf("job_history_%s exists: %v, want %v", day, !want, want)
		}
		if slices.Contains(partitionsOf(t, db, "job_history_details"), "job_history_details_"+day) != want {
			t.Errorf("job_history_details_%s exists: %v, want %v", day, !want, want)
		}
	}
	var left, details, running int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE status <> 'Running'), count(*) FILTER (WHERE status = 'Running'),
			(SELECT count(*) FROM job_history_details) FROM job_history`).Scan(&left, &running, &details); err != nil {
		t.Fatal(err)
	}
	// 03-02 (4), 03-04 (4), 03-05 (4) and the default's, with their
	// details.
	if left != 13 || running != 1 || details != 13 {
		t.Errorf("after retention: %d entries, %d running, %d details; want 13, 1, 13", left, running, details)
	}
	testdb.CheckRollups(t, db, "pruned")
}

// TestHistoryPartitionsMigrateStoredHistory: migration 0042 turns a stored
// history of 1,000,000 entries with their details into the until
// partitions without losing or changing a row, and ids go on after the
// stored ones.
func TestHistoryPartitionsMigrateStoredHistory(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.EmptyDSN(t)
	before, _ := migrationFS(t, models.RecordsMigration, nil)
	if _, err := openWith(t, dsn, "r0", before).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const jobs, perJob = 1000, 1000
	if _, err := db.Exec(`
		INSERT INTO workspaces (id) VALUES ('default') ON CONFLICT DO NOTHING;
		INSERT INTO resource_groups (workspace_id, name) VALUES ('default', 'rg');
		INSERT INTO job_collections (resource_group_id, name) SELECT id, 'jc' FROM resource_groups;
		INSERT INTO jobs (job_collection_id, name, definition, state)
		SELECT c.id, 'j' || g, '{}'::json, 'enabled' FROM job_collections c, generate_series(1, ` + strconv.Itoa(jobs) + `) g;
		INSERT INTO collection_job_counts (job_collection_id, enabled) SELECT id, ` + strconv.Itoa(jobs) + ` FROM job_collections
		ON CONFLICT (job_collection_id) DO UPDATE SET enabled = excluded.enabled;
		INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
		SELECT j.id, x.t, x.t, x.t, 'MainAction', CASE WHEN g % 10 = 0 THEN 'Failed' ELSE 'Completed' END, 'seeded ' || g
		FROM jobs j, generate_series(1, ` + strconv.Itoa(perJob) + `) g,
		     LATERAL (SELECT now() - interval '30 days' + (g * ` + strconv.Itoa(jobs) + ` + j.id) * interval '2 seconds') x(t);
		INSERT INTO job_history_details (history_id, instance, request) SELECT id, 'seed', '{"uri": "http://x"}' FROM job_history;
		INSERT INTO history_hours (workspace_id, hour, status, slot, count)
		SELECT 'default', date_trunc('hour', start_time), status, 0, count(*) FROM job_history GROUP BY 2, 3;
		ANALYZE`); err != nil {
		t.Fatal(err)
	}
	sums := func() (n, ids, dn int64, starts float64) {
		t.Helper()
		if err := db.QueryRow(`SELECT count(*), sum(id), (SELECT count(*) FROM job_history_details),
				sum(extract(epoch FROM start_time)) FROM job_history`).Scan(&n, &ids, &dn, &starts); err != nil {
			t.Fatal(err)
		}
		return
	}
	n0, ids0, dn0, st0 := sums()
	if n0 != jobs*perJob || dn0 != n0 {
		t.Fatalf("seeded %d entries, %d details", n0, dn0)
	}
	var maxID int64
	if err := db.QueryRow(`SELECT max(id) FROM job_history`).Scan(&maxID); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	applied, err := openWith(t, dsn, "r1", nil).Migrate(ctx)
	took := time.Since(start)
	if err != nil || !slices.Contains(applied, 42) {
		t.Fatalf("Migrate: %v, %v", applied, err)
	}
	t.Logf("migration 0042 over %d entries with their details: %v", n0, took)
	n1, ids1, dn1, st1 := sums()
	if n1 != n0 || ids1 != ids0 || dn1 != dn0 || st1 != st0 {
		t.Errorf("after the migration: %d entries (id sum %d, start sum %f), %d details; before %d (%d, %f), %d",
			n1, ids1, st1, dn1, n0, ids0, st0, dn0)
	}
	hist := partitionsOf(t, db, "job_history")
	if len(hist) != 9 { // until, 7 days, default
		t.Errorf("job_history's partitions: %v", hist)
	}
	var onlyUntil int64
	if err := db.QueryRow(`SELECT count(*) FROM ` + hist[len(hist)-1]).Scan(&onlyUntil); err != nil {
		t.Fatal(err)
	}
	if onlyUntil != n0 {
		t.Errorf("%s holds %d entries, want all %d", hist[len(hist)-1], onlyUntil, n0)
	}
	var next int64
	if err := db.QueryRow(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status)
		SELECT min(id), now(), now(), 'MainAction', 'Completed' FROM jobs RETURNING id`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if next <= maxID {
		t.Errorf("a new entry's id %d is not after the stored ones' (%d)", next, maxID)
	}
	if _, err := db.Exec(`DELETE FROM job_history WHERE id = $1`, next); err != nil {
		t.Fatal(err)
	}
	testdb.CheckRollups(t, db, "migrated")
}

// TestOldRunningRecordsFoundByFullRecovery: the claims look for expired
// leases among the recent records only (the window that spares them the
// history's older partitions); a record left running by an outage longer
// than that window is found by a claim that asks for all (RecoverAll).
func TestOldRunningRecordsFoundByFullRecovery(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	job := insertJob(t, store, coll.ID, "stranded")
	now := time.Now().UTC().Truncate(time.Second)
	for _, ago := range []time.Duration{time.Hour, 72 * time.Hour} {
		if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status,
				attempt_id, lease_owner, lease_expires_at, due_at)
			VALUES ($1, $2, $2, 'MainAction', 'Running', nextval('job_attempts_id_seq'), 'gone', $2::timestamptz + interval '1 minute', $2)`,
			job, now.Add(-ago)); err != nil {
			t.Fatal(err)
		}
	}
	expired := func(all bool) []time.Time {
		t.Helper()
		res, err := store.Claim(ctx, models.ClaimRequest{Now: now, Owner: "me", RecoverAll: all,
			Plan: func(*models.EngineJob) *models.JobPlan { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		var starts []time.Time
		for _, a := range res.Attempts {
			if a.Expired {
				starts = append(starts, a.StartedAt.UTC())
			}
		}
		slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
		return starts
	}
	if got := expired(false); len(got) != 1 || !got[0].Equal(now.Add(-time.Hour)) {
		t.Errorf("a claim reported the expired records started at %v, want the recent one only", got)
	}
	if got := expired(true); len(got) != 2 || !got[0].Equal(now.Add(-72*time.Hour)) {
		t.Errorf("a full recovery reported the expired records started at %v, want both", got)
	}
}

// TestHistoryRetentionWaitsForReaders: a day whose partition a reader
// holds (a long page query) is left for the next pass after the lock's
// timeout, without failing the rest of the retention.
func TestHistoryRetentionWaitsForReaders(t *testing.T) {
	ctx := context.Background()
	day0 := time.Date(2031, 7, 1, 0, 0, 0, 0, time.UTC)
	store, db, coll := partitionedStore(t, day0)
	job := insertJob(t, store, coll.ID, "read")
	seedHistory(t, db, job, []time.Time{day0.Add(time.Hour)}, "Completed")
	reader, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRow(`SELECT count(*) FROM job_history`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	now := day0.AddDate(0, 0, 32)
	began := time.Now()
	st, err := store.Prune(ctx, now, models.Retention{HistoryMaxAge: 30 * 24 * time.Hour, AuditMaxAge: time.Hour})
	t.Logf("Prune with a reader: %v", time.Since(began))
	if err != nil || st.History != 0 {
		t.Errorf("with a reader holding the history: pruned %d entries, %v; want none and no error", st.History, err)
	}
	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	if st, err := store.Prune(ctx, now, models.Retention{HistoryMaxAge: 30 * 24 * time.Hour}); err != nil || st.History != 1 {
		t.Errorf("after the reader: pruned %d entries, %v; want 1", st.History, err)
	}
	if slices.Contains(partitionsOf(t, db, "job_history"), "job_history_20310701") {
		t.Error("job_history_20310701 is still there")
	}
}

// TestHistoryPerJobLimitAcrossChunksAndInstances: the per-job limit over
// more jobs than one look-up of the cuts reads (1,100 jobs, three chunks),
// each with 1 to 7 finished entries and one running record, pruned by
// four instances at once: every job keeps its newest 4 finished entries
// and its running record, nothing is deleted twice (the counts add up to
// the excess), the details of the deleted entries go with them and the
// hourly counts match what is left.
func TestHistoryPerJobLimitAcrossChunksAndInstances(t *testing.T) {
	const jobs, limit = 1100, 4
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	ids := insertJobs(t, store, coll.ID, jobs)
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := db.Exec(`
		WITH h AS (
			INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
			SELECT j, now_ - g * interval '1 minute', now_ - g * interval '1 minute', now_ - g * interval '1 minute', 'MainAction',
			       CASE WHEN g % 3 = 0 THEN 'Failed' ELSE 'Completed' END, ''
			FROM unnest($1::bigint[]) WITH ORDINALITY AS u(j, n), LATERAL (SELECT $2::timestamptz AS now_) c,
			     generate_series(1, 1 + (n % 7)::int) g
			RETURNING id, start_time, status),
		d AS (INSERT INTO job_history_details (history_id, start_time, instance) SELECT id, start_time, 'test' FROM h)
		INSERT INTO history_hours (workspace_id, hour, status, slot, count)
		SELECT 'default', date_trunc('hour', start_time), status, 0, count(*) FROM h GROUP BY 2, 3`, ids, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status, attempt_id,
		lease_owner, lease_expires_at) SELECT j, $2::timestamptz - interval '2 hours', $2::timestamptz, 'MainAction', 'Running',
		nextval('job_attempts_id_seq'), 'elsewhere', $2::timestamptz + interval '1 hour' FROM unnest($1::bigint[]) j`, ids, now); err != nil {
		t.Fatal(err)
	}
	var excess int64
	if err := db.QueryRow(`SELECT coalesce(sum(n - $1), 0) FROM (SELECT count(*) AS n FROM job_history WHERE status <> 'Running'
		GROUP BY job_id HAVING count(*) > $1) c`, limit).Scan(&excess); err != nil || excess == 0 {
		t.Fatalf("excess %d, %v", excess, err)
	}
	var wg sync.WaitGroup
	deleted := make([]int64, 4)
	errs := make([]error, 4)
	for i := range deleted {
		wg.Go(func() {
			st, err := store.Prune(ctx, now, models.Retention{HistoryPerJob: limit})
			deleted[i], errs[i] = st.History, err
		})
	}
	wg.Wait()
	var sum int64
	for i := range deleted {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		sum += deleted[i]
	}
	if sum != excess {
		t.Errorf("the instances deleted %v entries (%d in all), want %d in all", deleted, sum, excess)
	}
	var wrong, running, orphans, hours, left int64
	if err := db.QueryRow(`SELECT count(*) FROM (
			SELECT u.j, (SELECT count(*) FROM job_history h WHERE h.job_id = u.j AND h.status <> 'Running') AS kept,
			       (SELECT min(h.start_time) FROM job_history h WHERE h.job_id = u.j AND h.status <> 'Running') AS oldest,
			       u.n
			FROM unnest($1::bigint[]) WITH ORDINALITY AS u(j, n)) x
		WHERE kept <> least(1 + (n % 7), $2) OR oldest <> $3::timestamptz - least(1 + (n % 7), $2) * interval '1 minute'`,
		ids, limit, now).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Errorf("%d jobs do not keep exactly their newest %d entries", wrong, limit)
	}
	err := db.QueryRow(`SELECT (SELECT count(*) FROM job_history WHERE status = 'Running'),
		(SELECT count(*) FROM job_history_details x WHERE NOT EXISTS (SELECT 1 FROM job_history h WHERE h.id = x.history_id)),
		(SELECT sum(count) FROM history_hours), (SELECT count(*) FROM job_history WHERE status <> 'Running')`).Scan(&running, &orphans, &hours, &left)
	if err != nil {
		t.Fatal(err)
	}
	if running != jobs || orphans != 0 || hours != left {
		t.Errorf("running records %d (want %d), details without their entry %d, hourly counts %d for %d entries", running, jobs, orphans, hours, left)
	}
}
