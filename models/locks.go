package models

// The lock order of every write (SPEC §14.1). Writes of many clients at
// once cannot deadlock when each transaction takes its row locks in one
// order:
//
//  1. the workspace: its own writes lock its row FOR UPDATE (rename,
//     delete); a write in it takes at most FOR KEY SHARE, by the foreign
//     key check of a resource group it creates, before its collections
//     (the audit log's entries, written last, reference no row);
//  2. the collections, in id order (lockCollections: FOR NO KEY UPDATE,
//     or FOR UPDATE by a write of the collection itself: PutCollection,
//     DeleteCollection), taken by the writes that need the set of a
//     collection's jobs to hold still: SaveJobs and imports, CreateJob
//     (the name is checked under it), a change of the collection's quota,
//     its deletion. Such a write takes it holding no job lock. A single
//     job's creation (saveJobTx) takes none: its collection's existence is
//     the foreign key's check (FOR KEY SHARE, which FOR NO KEY UPDATE does
//     not block) and its quota is checked under the counts row (step 4,
//     checkJobQuota), so that creations queue only at the end of their
//     transactions;
//  3. the jobs, in id order (lockJobs, deleteJobs, lockJobsOfWrites
//     before upsertJobs' upsert, FinishAttempts). The writes of jobs that
//     exist (a replacement or patch of one job, whose catalog reads it with
//     its lock, ReadJobToChange; state changes, deletes, bulk actions) and the
//     engine, which claims jobs (FOR UPDATE SKIP LOCKED), lock jobs
//     without their collection and never lock a collection afterwards;
//  4. the rows derived from the jobs: their facets and results (keyed by
//     job, written only under the job's lock), then history_hours (in
//     its key's order), then collection_job_counts in collection id
//     order (refreshJobCounts, after the last change of jobs, without
//     touching its key, so that no foreign key check locks the
//     collection again; or addJobCount, the write of one job, which
//     locks its one row by its update); the quota of jobs is checked
//     there (checkJobQuota, countJobWrite);
//  5. the target limits' rows (target_limits, migration 0037), after
//     everything else a claim locks: the claim holds the rows of the
//     limits it tags attempts for FOR KEY SHARE (holdForLimits, key
//     order) and locks the hosts whose held attempts it starts FOR NO KEY
//     UPDATE SKIP LOCKED (startLimited, key order; then those attempts,
//     SKIP LOCKED). The catalog's writes of a limit (PutTargetLimit,
//     DeleteTargetLimit) lock its row first and then only the held
//     attempts of that host (the delete untags them): a claim never
//     waits for a limit's row while holding one of those attempts, and
//     waits only for a delete (FOR KEY SHARE), which waits for nothing
//     the claim holds.
//
// A serialization failure or deadlock that still happens (SQLSTATE 40001
// or 40P01, a path this order misses) is retried with the whole
// transaction by AuditedThen, the transaction of every write of the
// catalog (retryable, withRetry).

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// lockCollections locks the collections ids (each once, in id order) FOR
// NO KEY UPDATE in tx and returns those that exist, in id order.
func lockCollections(tx *gorm.DB, ids ...int64) ([]int64, error) {
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	var locked []int64
	if err := tx.Raw(`SELECT id FROM job_collections WHERE id IN ? ORDER BY id FOR NO KEY UPDATE`, ids).Scan(&locked).Error; err != nil {
		return nil, err
	}
	return locked, nil
}

// lockJobsOfWrites locks, in id order, the stored jobs that writes
// replace, so that upsertJobs' upsert (which locks the rows it replaces
// in the order of writes) waits for no job lock. The caller holds the
// locks of the writes' collections.
func lockJobsOfWrites(tx *gorm.DB, writes []JobWrite) error {
	if len(writes) == 0 {
		return nil
	}
	names := make([]string, 0, len(writes))
	seen := map[string]bool{}
	for _, w := range writes {
		if n := strings.ToLower(w.Name); !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return tx.Exec(`SELECT id FROM jobs WHERE job_collection_id IN ? AND lower(name) IN ? ORDER BY id FOR NO KEY UPDATE`,
		collectionsOf(writes), names).Error
}

// maxTries is how many times withRetry runs a transaction that fails with
// a retryable error.
const maxTries = 5

// retryable reports whether err is a serialization failure or a deadlock
// (SQLSTATE 40001, 40P01): the transaction was rolled back and may
// succeed when run again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// withRetry runs try, a whole transaction, until it returns anything but
// a retryable error, at most maxTries times, waiting a jittered,
// growing backoff between tries (5 ms, 10 ms, 20 ms, 40 ms, each
// between half and one and a half times that). try is told which try it
// is (0 first). It returns try's last error, or ctx's when ctx ends while
// it waits.
//
// A try refused by a read-only server (SQLSTATE 25006, isReadOnly) or
// whose connection was lost before its commit (lostBeforeCommit) is run
// once more at once: the pool has dropped the connections to that server
// (poolGuard; the driver drops a broken one), so the next try reconnects,
// and after a failover finds the new primary. A second such error is
// returned (ErrReadOnly or ErrUnavailable: 503, try later).
func withRetry(ctx context.Context, try func(n int) error) error {
	reconnected := false
	for n := 0; ; n++ {
		err := try(n)
		if err != nil && !reconnected && n+1 < maxTries && (isReadOnly(err) || errors.As(err, new(lostBeforeCommit))) {
			reconnected = true
			continue
		}
		if err == nil || !retryable(err) || n+1 >= maxTries {
			return err
		}
		wait := time.Duration(float64(5*time.Millisecond<<n) * (0.5 + rand.Float64()))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
