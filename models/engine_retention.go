package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Retention says what Prune deletes. A zero or negative field disables
// that part.
type Retention struct {
	// HistoryMaxAge deletes history entries that started longer ago, and
	// the backfills (with their runs) that ended longer ago.
	HistoryMaxAge time.Duration
	// HistoryPerJob keeps only the newest entries of each job; a job's
	// entries beyond them go once their day has closed (history_rewrite.go).
	HistoryPerJob int
	// FinishedJobMaxAge deletes completed and faulted jobs that ended
	// longer ago.
	FinishedJobMaxAge time.Duration
	// InstanceMaxAge deletes the rows of engine instances whose heartbeat
	// stopped longer ago, by the database's clock (Prune's now plays no
	// part), and that hold no running attempt.
	InstanceMaxAge time.Duration
	// AuditMaxAge deletes audit log entries made longer ago.
	AuditMaxAge time.Duration
	// NotificationMaxAge deletes delivered and failed notifications (the
	// delivery log) that finished longer ago, and the minInterval windows
	// of alert rules that ended longer ago.
	NotificationMaxAge time.Duration
}

// PruneStats counts what Prune deleted.
type PruneStats struct {
	History, Jobs, Instances, Audit, Notifications, Backfills int64
	// HistoryRewritten counts the entries of History that the per-job
	// limit removed by rewriting their day (history_rewrite.go) rather
	// than row by row.
	HistoryRewritten int64
}

// Prune deletes, as of now, what r says is too old or too much. Several
// engines may prune at once: the deletes are idempotent.
func (s *Store) Prune(ctx context.Context, now time.Time, r Retention) (PruneStats, error) {
	var st PruneStats
	db := s.db.WithContext(ctx)
	if r.FinishedJobMaxAge > 0 {
		err := db.Transaction(func(tx *gorm.DB) (err error) {
			st.Jobs, err = deleteJobs(tx, "j.ended_at IS NOT NULL AND j.ended_at < ? AND "+notUpstream, now.Add(-r.FinishedJobMaxAge))
			return err
		})
		if err != nil {
			return st, translate("models: prune jobs", err)
		}
	}
	if r.HistoryMaxAge > 0 {
		n, err := pruneHistoryByAge(db, now.Add(-r.HistoryMaxAge))
		if err != nil {
			return st, translate("models: prune history", err)
		}
		st.History += n
		if err := pruneDeadlines(db, now.Add(-r.HistoryMaxAge)); err != nil {
			return st, translate("models: prune deadlines", err)
		}
	}
	if r.HistoryMaxAge > 0 {
		res := db.Exec(`DELETE FROM backfills WHERE state <> 'running' AND ended_at < ?`, now.Add(-r.HistoryMaxAge))
		if res.Error != nil {
			return st, translate("models: prune backfills", res.Error)
		}
		st.Backfills = res.RowsAffected
	}
	if r.HistoryPerJob > 0 {
		n, rw, err := pruneHistoryPerJob(db, r.HistoryPerJob, now)
		if err != nil {
			return st, translate("models: prune history", err)
		}
		st.History += n
		st.HistoryRewritten = rw
	}
	if r.InstanceMaxAge > 0 {
		n, err := pruneInstances(db, r.InstanceMaxAge)
		if err != nil {
			return st, translate("models: prune instances", err)
		}
		st.Instances = n
	}
	if r.AuditMaxAge > 0 {
		n, err := pruneAudit(db, now.Add(-r.AuditMaxAge))
		if err != nil {
			return st, translate("models: prune audit log", err)
		}
		st.Audit = n
	}
	if r.NotificationMaxAge > 0 {
		cut := now.Add(-r.NotificationMaxAge)
		res := db.Exec(`DELETE FROM notifications WHERE finished_at IS NOT NULL AND finished_at < ?`, cut)
		if res.Error != nil {
			return st, translate("models: prune notifications", res.Error)
		}
		st.Notifications = res.RowsAffected
		if err := db.Exec(`DELETE FROM notification_throttles WHERE window_until < ?`, cut).Error; err != nil {
			return st, translate("models: prune notification windows", err)
		}
		if err := db.Exec(`DELETE FROM monitor_throttles WHERE window_until < ?`, cut).Error; err != nil {
			return st, translate("models: prune monitor windows", err)
		}
	}
	return st, nil
}

// perJobChunk is how many jobs one look-up of the per-job limit's cuts
// (pruneHistoryPerJob) reads.
const perJobChunk = 500

// pruneHistoryPerJob applies the per-job limit as of now: it finds each
// job's newest finished entry beyond the limit (its cut) through the
// job's index (job_id, start_time DESC, id DESC), perJobChunk jobs per
// query (a job under the limit costs the reading of its entries' index
// entries, and nothing is grouped or ranked across the whole history),
// then removes every job's entries at or before its cut partition by
// partition (applyHistoryCuts, history_rewrite.go: closed days mostly
// rewritten, the rest row by row). One engine at a time applies it
// (perJobLockKey, on a connection of its own): another that finds it
// taken skips the limit for that pass. It returns how many entries went,
// and how many of them with a rewritten day.
func pruneHistoryPerJob(db *gorm.DB, limit int, now time.Time) (removed, rewritten int64, err error) {
	err = db.Connection(func(conn *gorm.DB) error {
		var mine bool
		if err := conn.Raw(`SELECT pg_try_advisory_lock(?)`, int64(perJobLockKey)).Scan(&mine).Error; err != nil || !mine {
			return err
		}
		// Released however the pass ends, or the pooled connection would
		// keep it.
		defer conn.WithContext(context.WithoutCancel(conn.Statement.Context)).Exec(`SELECT pg_advisory_unlock(?)`, int64(perJobLockKey))
		if err := dropRewriteLeftovers(conn); err != nil {
			return err
		}
		cuts, err := historyCuts(conn, limit)
		if err != nil || len(cuts) == 0 {
			return err
		}
		data, err := json.Marshal(cuts)
		if err != nil {
			return err
		}
		removed, rewritten, err = applyHistoryCuts(conn, string(data), now)
		return err
	})
	if err != nil {
		return removed, rewritten, fmt.Errorf("prune history per job: %w", err)
	}
	return removed, rewritten, nil
}

// historyCuts returns the cut of each job that has more than limit
// finished entries.
func historyCuts(db *gorm.DB, limit int) ([]historyCut, error) {
	var cuts []historyCut
	for after := int64(0); ; {
		// The chunk's jobs, each with its cut (none when under the
		// limit), in one query.
		var chunk []struct {
			JobID int64
			Start *time.Time
			ID    *int64
		}
		err := db.Raw(`
			SELECT j.id AS job_id, x.start_time AS start, x.id
			FROM (SELECT id FROM jobs WHERE id > ? ORDER BY id LIMIT ?) j
			LEFT JOIN LATERAL (SELECT h.start_time, h.id FROM job_history h
				WHERE h.job_id = j.id AND `+finishedEntry+`
				ORDER BY h.start_time DESC, h.id DESC OFFSET ? LIMIT 1) x ON true
			ORDER BY j.id`, after, perJobChunk, limit).Scan(&chunk).Error
		if err != nil {
			return nil, fmt.Errorf("find the cuts of the per-job limit: %w", err)
		}
		if len(chunk) == 0 {
			return cuts, nil
		}
		for _, c := range chunk {
			if c.ID != nil {
				cuts = append(cuts, historyCut{JobID: c.JobID, Start: *c.Start, ID: *c.ID})
			}
		}
		after = chunk[len(chunk)-1].JobID
	}
}
