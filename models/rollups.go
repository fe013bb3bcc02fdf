package models

// The dashboard's rollups (migrations 0022 and 0023), maintained by the
// store's writes in their own transaction (triggers only NOTIFY, SPEC §12):
//
//   - collection_job_counts: a collection's jobs by state. Every statement
//     that inserts or deletes jobs or changes their state is followed by
//     refreshJobCounts (or refreshJobCountsOf) for the collections it
//     touched, or, for the write of one job it holds locked (saveJobTx,
//     deleteJobNamed), by addJobCount; jobs are deleted through deleteJobs
//     or deleteJobNamed.
//   - history_hours: executions per workspace, hour and status. Every
//     history insert adds to it (historyHoursAdd in the engine's result
//     statement, rollHistoryEntry for single entries) and every delete of
//     history takes away (deleteHistory, deleteJobs).
//   - job_results.last_status (migrations 0023 and 0029): the status of
//     the job's newest history entry, set with lastStatusSet by the same
//     writes; job_results.last_failed_at (0024), the start of its newest
//     Failed entry, with lastFailedSet.
//
// TestRollupsMatchCounts checks all three against count(*) after a mix of
// every kind of write.

import (
	"fmt"
	"slices"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// refreshJobCounts recounts the jobs by state of each collection in ids
// into collection_job_counts. It locks each collection's row (in id
// order; the rows missing are created first) and counts in a later statement,
// whose snapshot then holds every write committed by another
// transaction that refreshed the same row before: the last writer to
// commit has counted everything before it. It never rewrites a row's key
// (job_collection_id): an update of a row that changes its key, or of a
// row this transaction inserted, makes PostgreSQL check the foreign key
// again, which locks the collection (FOR KEY SHARE) after the jobs,
// against the lock order (locks.go). Call it in the write's transaction
// after its last change of jobs.
func refreshJobCounts(tx *gorm.DB, ids ...int64) error {
	ids = uniqueIDs(ids)
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil
	}
	lock := func() (int, error) {
		var locked []int64
		err := tx.Raw(`SELECT job_collection_id FROM collection_job_counts WHERE job_collection_id IN ?
			ORDER BY job_collection_id FOR NO KEY UPDATE`, ids).Scan(&locked).Error
		return len(locked), err
	}
	n, err := lock()
	if err != nil {
		return fmt.Errorf("refresh job counts: %w", err)
	}
	if n < len(ids) {
		// Rows missing (a collection counted for the first time): made,
		// then every row locked again in order.
		err := tx.Exec(`INSERT INTO collection_job_counts (job_collection_id)
			SELECT c.id FROM job_collections c
			WHERE c.id IN ? AND NOT EXISTS (SELECT 1 FROM collection_job_counts k WHERE k.job_collection_id = c.id)
			ORDER BY c.id
			ON CONFLICT (job_collection_id) DO NOTHING`, ids).Error
		if err != nil {
			return fmt.Errorf("refresh job counts: %w", err)
		}
		if _, err := lock(); err != nil {
			return fmt.Errorf("refresh job counts: %w", err)
		}
	}
	err = tx.Exec(`UPDATE collection_job_counts k SET enabled = n.enabled, disabled = n.disabled,
			completed = n.completed, faulted = n.faulted
		FROM (SELECT c.id,
		             count(j.id) FILTER (WHERE j.state = 'enabled')   AS enabled,
		             count(j.id) FILTER (WHERE j.state = 'disabled')  AS disabled,
		             count(j.id) FILTER (WHERE j.state = 'completed') AS completed,
		             count(j.id) FILTER (WHERE j.state = 'faulted')   AS faulted
		      FROM job_collections c LEFT JOIN jobs j ON j.job_collection_id = c.id
		      WHERE c.id IN ? GROUP BY c.id) n
		WHERE k.job_collection_id = n.id AND (k.enabled, k.disabled, k.completed, k.faulted)
		      IS DISTINCT FROM (n.enabled, n.disabled, n.completed, n.faulted)`, ids).Error
	if err != nil {
		return fmt.Errorf("refresh job counts: %w", err)
	}
	return nil
}

// addJobCount counts the write of one job of collection coll into its
// counts row: the job was in state from (empty: it did not exist) and is
// now in state to (empty: deleted). Its one statement locks the row to the
// end of the transaction, so that a write of one job, which knows exactly
// what it changed (it holds the job's lock), queues for the row only from
// its last change of jobs to its commit, and does not count the whole
// collection again as refreshJobCounts does. The two agree: an update
// adds to the newest committed row, and a recount, locking the row first,
// counts after every write that added to it committed. It returns the
// collection's jobs in all after the change; ok is false, and nothing
// changed, when the collection has no counts row yet, or when a count
// would fall below zero (the row was wrong: something changed jobs
// without counting them): call refreshJobCounts, which makes the row, or
// makes it right.
func addJobCount(tx *gorm.DB, coll int64, from, to jobdef.State) (total int64, ok bool, err error) {
	delta := map[jobdef.State]int64{}
	for _, st := range []jobdef.State{from, to} {
		switch st {
		case "", jobdef.Enabled, jobdef.Disabled, jobdef.Completed, jobdef.Faulted:
		default:
			return 0, false, fmt.Errorf("count jobs: unknown state %q", st)
		}
	}
	delta[from]--
	delta[to]++
	e, d, c, f := delta[jobdef.Enabled], delta[jobdef.Disabled], delta[jobdef.Completed], delta[jobdef.Faulted]
	var totals []int64
	err = tx.Raw(`UPDATE collection_job_counts SET enabled = enabled + ?, disabled = disabled + ?,
			completed = completed + ?, faulted = faulted + ?
		WHERE job_collection_id = ? AND enabled + ? >= 0 AND disabled + ? >= 0 AND completed + ? >= 0 AND faulted + ? >= 0
		RETURNING enabled + disabled + completed + faulted`,
		e, d, c, f, coll, e, d, c, f).Scan(&totals).Error
	if err != nil {
		return 0, false, fmt.Errorf("count jobs: %w", err)
	}
	if len(totals) == 0 {
		return 0, false, nil
	}
	return totals[0], true, nil
}

// refreshJobCountsOf is refreshJobCounts for the collections of the jobs
// ids.
func refreshJobCountsOf(tx *gorm.DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	var colls []int64
	if err := tx.Raw(`SELECT DISTINCT job_collection_id FROM jobs WHERE id IN ?`, ids).Scan(&colls).Error; err != nil {
		return fmt.Errorf("refresh job counts: %w", err)
	}
	return refreshJobCounts(tx, colls...)
}

// deleteJobs deletes the jobs matching where (a condition on jobs j, with
// its args) with their history, takes that history out of history_hours
// and recounts their collections, in tx (which should be a transaction).
// It locks the jobs first, in id order (locks.go), so that no engine adds
// history to them between the count and the delete. It returns how many
// jobs it deleted.
func deleteJobs(tx *gorm.DB, where string, args ...any) (int64, error) {
	var ids []int64
	if err := tx.Raw(`SELECT j.id FROM jobs j WHERE `+where+` ORDER BY j.id FOR UPDATE`, args...).Scan(&ids).Error; err != nil {
		return 0, fmt.Errorf("delete jobs: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	if err := refuseDeletingUpstreams(tx, ids); err != nil { // triggers.go
		return 0, err
	}
	var colls []int64
	err := tx.Raw(deleteJobsSQL(`SELECT DISTINCT job_collection_id FROM d`), ids).Scan(&colls).Error
	if err != nil {
		return 0, fmt.Errorf("delete jobs: %w", err)
	}
	return int64(len(ids)), refreshJobCounts(tx, colls...)
}

// deleteJobsSQL is the statement that deletes the jobs whose ids are its
// argument, with their history, and takes that history's entries out of
// history_hours (a running record is not an entry); answer is its final
// SELECT over d, the deleted jobs (id, job_collection_id, state).
func deleteJobsSQL(answer string) string {
	return `
		WITH d AS (DELETE FROM jobs WHERE id IN ? RETURNING id, job_collection_id, state),
		dd AS (DELETE FROM job_history_details x USING d JOIN job_history h ON h.job_id = d.id
		       WHERE x.history_id = h.id AND x.start_time = h.start_time), g AS (
			SELECT rg.workspace_id, date_trunc('hour', h.start_time) AS hour, h.status, count(*) AS n
			FROM d
			JOIN job_history h ON h.job_id = d.id AND ` + finishedEntry + `
			JOIN job_collections c ON c.id = d.job_collection_id
			JOIN resource_groups rg ON rg.id = c.resource_group_id
			GROUP BY 1, 2, 3
		), u AS (` + historyHoursTake + `)
		` + answer
}

// historyHoursTake is the statement that subtracts the counts g
// (workspace_id, hour, status, n) from history_hours: it adds -n to this
// connection's slot (historySlot).
const historyHoursTake = `INSERT INTO history_hours (workspace_id, hour, status, slot, count)
	SELECT g.workspace_id, g.hour, g.status, ` + historySlot + `, -g.n FROM g ORDER BY 1, 2, 3
	ON CONFLICT (workspace_id, hour, status, slot) DO UPDATE SET count = history_hours.count + excluded.count`

// historySlot is the slot of history_hours a connection writes to, so
// that engines adding to the same hour do not wait for each other's row
// locks (migration 0022).
const historySlot = `(pg_backend_pid() % 16)::smallint`

// deleteHistory deletes the history entries h matching where (with its
// args) and takes them out of history_hours in one statement; a running
// record (finishedEntry) is not an entry and stays. It returns
// how many it deleted.
func deleteHistory(db *gorm.DB, where string, args ...any) (int64, error) {
	return deleteHistoryIn(db, "job_history", where, args...)
}

// deleteHistoryIn is deleteHistory in table: job_history or one of its
// partitions (history_partitions.go). The details of the entries deleted
// go with them (those the previous release wrote, whose start time is
// when they were written, go with their partition).
func deleteHistoryIn(db *gorm.DB, table, where string, args ...any) (int64, error) {
	var n int64
	err := db.Raw(`
		WITH d AS (DELETE FROM `+table+` h WHERE (`+where+`) AND `+finishedEntry+` RETURNING h.id, h.job_id, h.start_time, h.status),
		dd AS (DELETE FROM job_history_details x USING d WHERE x.history_id = d.id AND x.start_time = d.start_time),
		g AS (`+entriesByHour("d")+`), u AS (`+historyHoursTake+`)
		SELECT count(*) FROM d`, args...).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("delete history: %w", err)
	}
	return n, nil
}

// entriesByHour is a query that counts the history entries of rows (an
// SQL relation with columns job_id, start_time and status) by workspace,
// hour and status: the g that historyHoursTake subtracts.
func entriesByHour(rows string) string {
	return `SELECT rg.workspace_id, date_trunc('hour', d.start_time) AS hour, d.status, count(*) AS n
		FROM ` + rows + ` d
		JOIN jobs j ON j.id = d.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		GROUP BY 1, 2, 3`
}

// historyHoursAdd is a statement for a data-modifying WITH query that adds
// the history entries of its CTE named rows (columns job_id, start_time,
// status, lateness_ms) to history_hours (in this connection's slot), in a
// fixed order so that writers adding to the same rows lock them in the
// same order.
func historyHoursAdd(rows string) string {
	return `INSERT INTO history_hours (workspace_id, hour, status, slot, count, max_lateness_ms)
		SELECT rg.workspace_id, date_trunc('hour', x.start_time), x.status, ` + historySlot + `, count(*), max(x.lateness_ms)
		FROM ` + rows + ` x
		JOIN jobs xj ON xj.id = x.job_id
		JOIN job_collections xc ON xc.id = xj.job_collection_id
		JOIN resource_groups rg ON rg.id = xc.resource_group_id
		GROUP BY 1, 2, 3
		ORDER BY 1, 2, 3
		ON CONFLICT (workspace_id, hour, status, slot) DO UPDATE
		SET count = history_hours.count + excluded.count,
		    max_lateness_ms = greatest(history_hours.max_lateness_ms, excluded.max_lateness_ms)`
}

// lastStatusSet is the SET list of an UPDATE of job_results j that makes status
// (an SQL expression) the job's last result when start (the entry's start
// time) is not older than the last result's.
func lastStatusSet(status, start string) string {
	return `last_status = CASE WHEN j.last_status_at IS NULL OR ` + start + ` >= j.last_status_at
		THEN ` + status + ` ELSE j.last_status END,
		last_status_at = greatest(j.last_status_at, ` + start + `)`
}

// lastFailedSet is the SET item of an UPDATE of job_results j that makes start (an
// SQL expression: the start time of the newest Failed entry written, NULL
// when none failed) the job's last failure when it is newer. Deleting
// history (retention) does not clear it: the "failed in the last 24 h"
// filter asks when the job last failed, which stays true when the entry
// is gone.
func lastFailedSet(start string) string {
	return `last_failed_at = greatest(j.last_failed_at, ` + start + `)`
}

// rollHistoryEntry adds the history entry e, just inserted in tx, to
// history_hours and to its job's last result and last failure (its
// job_results row; the caller holds the job's row lock, see
// job_results.go).
func rollHistoryEntry(tx *gorm.DB, e *HistoryEntry) error {
	err := tx.Exec(`
		WITH e AS (SELECT ?::bigint AS job_id, ?::timestamptz AS start_time, ?::text AS status, ?::bigint AS lateness_ms),
		u AS (UPDATE job_results j SET `+lastStatusSet("e.status", "e.start_time")+`,
			`+lastFailedSet("CASE WHEN e.status = 'Failed' THEN e.start_time END")+` FROM e WHERE j.job_id = e.job_id)
		`+historyHoursAdd("e"), e.JobID, e.StartTime, string(e.Status), e.LatenessMs).Error
	if err != nil {
		return fmt.Errorf("roll history entry: %w", err)
	}
	return nil
}
