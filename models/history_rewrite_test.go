package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// partitionOID returns the table named name's oid, 0 when there is none.
func partitionOID(t testing.TB, db *sql.DB, name string) int64 {
	t.Helper()
	var oid sql.NullInt64
	if err := db.QueryRow(`SELECT to_regclass($1)::oid::bigint`, name).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	return oid.Int64
}

// entriesOf returns how many finished entries, and details, the job id has.
func entriesOf(t testing.TB, db *sql.DB, id int64) (entries, details int) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*), count(x.history_id) FROM job_history h
		LEFT JOIN job_history_details x ON x.history_id = h.id AND x.start_time = h.start_time
		WHERE h.job_id = $1 AND h.status <> 'Running'`, id).Scan(&entries, &details); err != nil {
		t.Fatal(err)
	}
	return entries, details
}

// TestHistoryPerJobLimitRewritesClosedDays: the per-job limit removes a
// job's entries beyond its newest N by rewriting each closed day where
// they are many (the day's table is replaced, no row is deleted from it),
// keeps every other job's entries and all details of what stays, leaves a
// day that has not closed for when it has, prunes a day holding a running
// record row by row, and keeps history_hours exact throughout.
func TestHistoryPerJobLimitRewritesClosedDays(t *testing.T) {
	// In a time zone whose hours start off the UTC hour, a day's hourly
	// counts do not tell whether it changed during the rewrite: the swap
	// then compares the day with its copy.
	for _, zone := range []string{"UTC", "Asia/Kolkata"} {
		t.Run(zone, func(t *testing.T) { rewritesClosedDays(t, zone) })
	}
}

// rewritesClosedDays is TestHistoryPerJobLimitRewritesClosedDays with every
// session in zone.
func rewritesClosedDays(t *testing.T, zone string) {
	const limit = 5
	ctx := context.Background()
	day0 := time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)
	store, db := storeInZone(t, zone)
	if _, err := store.EnsureHistoryPartitions(ctx, day0); err != nil {
		t.Fatal(err)
	}
	coll := newCollection(t, store, "rg", "jc")
	busy := insertJob(t, store, coll.ID, "busy")
	slow := insertJob(t, store, coll.ID, "slow")
	other := insertJob(t, store, coll.ID, "other")
	// busy: ten entries a day, 03-01 to 03-04, every third failed; slow:
	// one on 03-01 and one on 03-03.
	for d := range 4 {
		for k := range 10 {
			status := "Completed"
			if k%3 == 0 {
				status = "Failed"
			}
			seedHistory(t, db, busy, []time.Time{day0.AddDate(0, 0, d).Add(time.Duration(k*2)*time.Hour + time.Minute)}, status)
		}
	}
	seedHistory(t, db, slow, []time.Time{day0.Add(5 * time.Hour), day0.AddDate(0, 0, 2).Add(7 * time.Hour)}, "Completed")
	// A record of another job, still running on 03-03 (interrupted, its
	// lease not yet recovered), holds that day for row-by-row pruning.
	if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status,
			lease_owner, lease_expires_at) VALUES ($1, $2, $2, 'MainAction', 'Running', 'x', $2::timestamptz + interval '1 hour')`,
		other, day0.AddDate(0, 0, 2).Add(23*time.Hour)); err != nil {
		t.Fatal(err)
	}
	testdb.CheckRollups(t, db, "seeded")
	oids := map[string]int64{}
	for _, d := range []string{"20310301", "20310302", "20310303", "20310304"} {
		oids[d] = partitionOID(t, db, "job_history_"+d)
	}

	// 03-04 at noon: 03-01 to 03-03 are closed, 03-04 is not.
	st, err := store.Prune(ctx, day0.AddDate(0, 0, 3).Add(12*time.Hour), models.Retention{HistoryPerJob: limit})
	if err != nil {
		t.Fatal(err)
	}
	if st.History != 30 || st.HistoryRewritten != 20 {
		t.Errorf("pruned %d entries, %d by rewriting; want 30, 20 (03-01 and 03-02 rewritten, 03-03 row by row)", st.History, st.HistoryRewritten)
	}
	for d, rewritten := range map[string]bool{"20310301": true, "20310302": true, "20310303": false, "20310304": false} {
		oid := partitionOID(t, db, "job_history_"+d)
		if oid == 0 || (oid != oids[d]) != rewritten {
			t.Errorf("job_history_%s: oid %d, was %d; rewritten: want %v", d, oid, oids[d], rewritten)
		}
		if partitionOID(t, db, "job_history_details_"+d) == 0 {
			t.Errorf("job_history_details_%s is gone", d)
		}
	}
	// busy keeps 03-04's ten (five beyond its limit, until 03-04 closes),
	// slow both of its entries, each entry its details.
	if e, d := entriesOf(t, db, busy); e != 10 || d != 10 {
		t.Errorf("busy has %d entries, %d with details; want 10, 10", e, d)
	}
	if e, d := entriesOf(t, db, slow); e != 2 || d != 2 {
		t.Errorf("slow has %d entries, %d with details; want 2, 2", e, d)
	}
	var orphans, running int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM job_history_details x WHERE NOT EXISTS
			(SELECT 1 FROM job_history h WHERE h.id = x.history_id AND h.start_time = x.start_time)),
		(SELECT count(*) FROM job_history WHERE status = 'Running')`).Scan(&orphans, &running); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 || running != 1 {
		t.Errorf("%d details without their entry, %d running records; want 0, 1", orphans, running)
	}
	testdb.CheckRollups(t, db, "03-04")

	// The rewritten day is a partition like the others: entries land in
	// it, a deleted job's go from it, its details' keys stay unique.
	late := day0.Add(20*time.Hour + 30*time.Minute)
	seedHistory(t, db, slow, []time.Time{late}, "Failed")
	var part string
	if err := db.QueryRow(`SELECT tableoid::regclass::text FROM job_history WHERE start_time = $1`, late).Scan(&part); err != nil || part != "job_history_20310301" {
		t.Errorf("an entry of 03-01 went to %q (%v)", part, err)
	}
	if _, err := db.Exec(`INSERT INTO job_history_details (history_id, start_time, instance)
		SELECT id, start_time, 'again' FROM job_history WHERE start_time = $1`, late); err == nil {
		t.Error("a second details row of an entry was stored in a rewritten day")
	}

	// 03-05 at 02:00: 03-04 has closed; busy's five oldest of it go.
	st, err = store.Prune(ctx, day0.AddDate(0, 0, 4).Add(2*time.Hour), models.Retention{HistoryPerJob: limit})
	if err != nil {
		t.Fatal(err)
	}
	if st.History != 5 || st.HistoryRewritten != 5 {
		t.Errorf("on 03-05: pruned %d entries, %d by rewriting; want 5, 5", st.History, st.HistoryRewritten)
	}
	if e, d := entriesOf(t, db, busy); e != limit || d != limit {
		t.Errorf("busy has %d entries, %d with details; want %d", e, d, limit)
	}
	var oldest time.Time
	if err := db.QueryRow(`SELECT min(start_time) FROM job_history WHERE job_id = $1`, busy).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	if want := day0.AddDate(0, 0, 3).Add(10*time.Hour + time.Minute); !oldest.Equal(want) {
		t.Errorf("busy's oldest entry starts %v, want %v (its newest five kept)", oldest, want)
	}
	testdb.CheckRollups(t, db, "03-05")
}

// TestHistoryPerJobLimitWhileJobsAreDeleted: engines applying the per-job
// limit at once (one rewrites, the others skip the pass) while jobs are
// deleted with their history: every remaining job keeps exactly its
// newest entries, a deleted job leaves nothing behind, no details are
// orphaned, and history_hours stays exact.
func TestHistoryPerJobLimitWhileJobsAreDeleted(t *testing.T) {
	const jobs, limit, days = 60, 3, 4
	ctx := context.Background()
	day0 := time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC)
	store, db, coll := partitionedStore(t, day0)
	ids := insertJobs(t, store, coll.ID, jobs)
	// Each job: six entries a day on four days, with details and hours.
	if _, err := db.Exec(`
		WITH h AS (
			INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status, message)
			SELECT j, t, t, t, 'MainAction', CASE WHEN g % 4 = 0 THEN 'Failed' ELSE 'Completed' END, ''
			FROM unnest($1::bigint[]) j, generate_series(0, $3 * 6 - 1) g,
			     LATERAL (SELECT $2::timestamptz + g * interval '4 hours' + j * interval '1 second') x(t)
			RETURNING id, start_time, status),
		d AS (INSERT INTO job_history_details (history_id, start_time, instance) SELECT id, start_time, 'test' FROM h)
		INSERT INTO history_hours (workspace_id, hour, status, slot, count)
		SELECT 'default', date_trunc('hour', start_time), status, 0, count(*) FROM h GROUP BY 2, 3`, ids, day0, days); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE job_results r SET last_status = h.status, last_status_at = h.start_time,
			last_failed_at = (SELECT max(start_time) FROM job_history f WHERE f.job_id = r.job_id AND f.status = 'Failed')
		FROM (SELECT DISTINCT ON (job_id) job_id, status, start_time FROM job_history ORDER BY job_id, start_time DESC) h
		WHERE h.job_id = r.job_id`); err != nil {
		t.Fatal(err)
	}
	now := day0.AddDate(0, 0, days).Add(2 * time.Hour) // every seeded day closed
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range 4 {
		wg.Go(func() {
			_, errs[i] = store.Prune(ctx, now, models.Retention{HistoryPerJob: limit})
		})
	}
	wg.Go(func() {
		for _, id := range ids[:jobs/2] {
			if err := store.DeleteJob(ctx, id); err != nil {
				errs[4] = err
				return
			}
		}
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One more pass finishes what the deletions held up (a rewrite gives
	// up on a lock it is not granted in time).
	if _, err := store.Prune(ctx, now, models.Retention{HistoryPerJob: limit}); err != nil {
		t.Fatal(err)
	}
	var gone, wrong, orphans, leftovers int
	if err := db.QueryRow(`SELECT
		(SELECT count(*) FROM job_history WHERE job_id = ANY ($1)),
		(SELECT count(*) FROM unnest($2::bigint[]) j WHERE (SELECT count(*) FROM job_history h WHERE h.job_id = j) <> $3),
		(SELECT count(*) FROM job_history_details x WHERE NOT EXISTS
			(SELECT 1 FROM job_history h WHERE h.id = x.history_id AND h.start_time = x.start_time)),
		(SELECT count(*) FROM pg_class WHERE relname LIKE 'job_history%\_rw')`,
		ids[:jobs/2], ids[jobs/2:], limit).Scan(&gone, &wrong, &orphans, &leftovers); err != nil {
		t.Fatal(err)
	}
	if gone != 0 || wrong != 0 || orphans != 0 || leftovers != 0 {
		t.Errorf("entries of deleted jobs %d, jobs not keeping exactly %d entries %d, details without their entry %d, tables left by rewrites %d",
			gone, limit, wrong, orphans, leftovers)
	}
	testdb.CheckRollups(t, db, "pruned")
}

// TestHistoryRewriteKeepsUpWithDeletedJobs: a job deleted with its
// history while a day is being rewritten (after the copy, before the
// copy's foreign key) leaves nothing behind in the rewritten day, neither
// entries nor details, and history_hours stays exact.
func TestHistoryRewriteKeepsUpWithDeletedJobs(t *testing.T) {
	const limit = 2
	ctx := context.Background()
	day0 := time.Date(2031, 7, 1, 0, 0, 0, 0, time.UTC)
	store, db, coll := partitionedStore(t, day0)
	keep := insertJob(t, store, coll.ID, "keep")
	victim := insertJob(t, store, coll.ID, "victim")
	// keep: four entries on 07-01, two on 07-02 (07-01's go); victim:
	// one on 07-01, under the limit (it is copied with the day).
	seedHistory(t, db, keep, []time.Time{day0.Add(time.Hour), day0.Add(5 * time.Hour), day0.Add(9 * time.Hour), day0.Add(13 * time.Hour),
		day0.AddDate(0, 0, 1).Add(time.Hour), day0.AddDate(0, 0, 1).Add(5 * time.Hour)}, "Completed")
	seedHistory(t, db, victim, []time.Time{day0.Add(7 * time.Hour)}, "Failed")
	// The deletion of victim, as Store.DeleteJob makes it, held open.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`
		WITH d AS (DELETE FROM jobs WHERE id = $1 RETURNING id),
		dd AS (DELETE FROM job_history_details x USING job_history h
		       WHERE h.job_id = $1 AND x.history_id = h.id AND x.start_time = h.start_time)
		INSERT INTO history_hours (workspace_id, hour, status, slot, count)
		SELECT 'default', date_trunc('hour', start_time), status, 1, -count(*) FROM job_history WHERE job_id = $1 GROUP BY 2, 3
		ON CONFLICT (workspace_id, hour, status, slot) DO UPDATE SET count = history_hours.count + excluded.count`, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE collection_job_counts SET enabled = enabled - 1 WHERE job_collection_id = $1`, coll.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var st models.PruneStats
	go func() {
		var err error
		st, err = store.Prune(ctx, day0.AddDate(0, 0, 3), models.Retention{HistoryPerJob: limit})
		done <- err
	}()
	// The rewrite has copied 07-01 (the deleted job's entry with the
	// rest: the deletion is not committed) and waits to add the copy's
	// foreign key.
	for waiting := false; !waiting; {
		select {
		case err := <-done:
			t.Fatalf("the pass ended (%v) before the deletion was committed", err)
		case <-time.After(5 * time.Millisecond):
		}
		if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted
			AND relation = 'jobs'::regclass AND mode = 'ShareRowExclusiveLock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st.History != 4 || st.HistoryRewritten != 4 {
		t.Errorf("pruned %d entries, %d by rewriting; want 4, 4", st.History, st.HistoryRewritten)
	}
	if e, d := entriesOf(t, db, victim); e != 0 || d != 0 {
		t.Errorf("the deleted job has %d entries, %d details left", e, d)
	}
	if e, d := entriesOf(t, db, keep); e != limit || d != limit {
		t.Errorf("keep has %d entries, %d with details; want %d", e, d, limit)
	}
	var details int
	if err := db.QueryRow(`SELECT count(*) FROM job_history_details`).Scan(&details); err != nil || details != limit {
		t.Errorf("%d details are stored (%v), want keep's %d", details, err, limit)
	}
	testdb.CheckRollups(t, db, "pruned")
}

// TestHistoryRewriteOfARewrittenDay: a day rewritten once is rewritten
// again when more of it goes beyond the limit, and stays a partition with
// the history's indexes and foreign key.
func TestHistoryRewriteOfARewrittenDay(t *testing.T) {
	const limit = 8
	ctx := context.Background()
	day0 := time.Date(2031, 9, 1, 0, 0, 0, 0, time.UTC)
	store, db, coll := partitionedStore(t, day0)
	job := insertJob(t, store, coll.ID, "job")
	hourly := func(day, n int) []time.Time {
		var starts []time.Time
		for k := range n {
			starts = append(starts, day0.AddDate(0, 0, day).Add(time.Duration(k)*time.Hour))
		}
		return starts
	}
	seedHistory(t, db, job, hourly(0, 10), "Completed")
	indexes := func() (n int) {
		if err := db.QueryRow(`SELECT count(*) FROM pg_index WHERE indrelid = 'job_history_20310901'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := indexes()
	for round, c := range []struct {
		seed, removed int64
	}{{0, 2}, {5, 5}} {
		seedHistory(t, db, job, hourly(1, int(c.seed)), "Completed")
		before := partitionOID(t, db, "job_history_20310901")
		st, err := store.Prune(ctx, day0.AddDate(0, 0, 3), models.Retention{HistoryPerJob: limit})
		if err != nil {
			t.Fatal(err)
		}
		if st.HistoryRewritten != c.removed || partitionOID(t, db, "job_history_20310901") == before {
			t.Errorf("round %d: %d entries removed by rewriting 09-01 (oid %d, was %d), want %d", round, st.HistoryRewritten,
				partitionOID(t, db, "job_history_20310901"), before, c.removed)
		}
		if got := indexes(); got != want {
			t.Errorf("round %d: the rewritten day has %d indexes, want %d", round, got, want)
		}
		if e, d := entriesOf(t, db, job); e != limit || d != limit {
			t.Errorf("round %d: %d entries, %d with details; want %d", round, e, d, limit)
		}
		testdb.CheckRollups(t, db, fmt.Sprintf("round %d", round))
	}
	// The job's deletion still reaches the twice rewritten day.
	if err := store.DeleteJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	if e, d := entriesOf(t, db, job); e != 0 || d != 0 {
		t.Errorf("after the job's deletion: %d entries, %d details", e, d)
	}
	testdb.CheckRollups(t, db, "deleted")
}
