package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Retention says what Prune deletes. A zero or negative field disables
// that part.
type Retention struct {
	// HistoryMaxAge deletes history entries that started longer ago, and
	// the backfills (with their runs) that ended longer ago.
	HistoryMaxAge time.Duration
	// HistoryPerJob keeps only the newest entries of each job.
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
		n, err := deleteHistory(db, `h.id IN (
				SELECT id FROM (
					SELECT id, row_number() OVER (PARTITION BY job_id ORDER BY start_time DESC, id DESC) AS n
					FROM job_history WHERE status <> 'Running' AND job_id IN (
						SELECT job_id FROM job_history WHERE status <> 'Running' GROUP BY job_id HAVING count(*) > ?)
				) ranked WHERE n > ?
			)`, r.HistoryPerJob, r.HistoryPerJob)
		if err != nil {
			return st, translate("models: prune history", err)
		}
		st.History += n
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
