package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// NextWake returns the earliest moment at which the engine has something
// to do: a due job, a pending attempt or an expiring lease (jobs and
// attempts of disabled collections aside), or, while attempts wait for a
// target limit, the next second (when a per-second limit has room again;
// a slot freed by an attempt's end is taken by the engine that ended it,
// which claims at once). ok is false when there is none.
// It is on the caller's clock, which reads now: due times are the
// instance's already, and a lease, which ends by the database's clock, is
// converted (now plus what is left of it by the database's clock), so
// that an instance whose clock is ahead does not wake, find nothing
// expired and wake again at once until the database's clock catches up.
func (s *Store) NextWake(ctx context.Context, now time.Time) (at time.Time, ok bool, err error) {
	at, ok, err = nextWake(s.db.WithContext(ctx), now)
	if err != nil {
		return time.Time{}, false, translate("models: next wake", err)
	}
	return at, ok, nil
}

// nextWake is NextWake's query, on db (a transaction or not).
func nextWake(db *gorm.DB, now time.Time) (at time.Time, ok bool, err error) {
	var row struct{ At *time.Time }
	err = db.Raw(`SELECT least(
		(SELECT j.next_run_at FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE j.state = 'enabled' AND j.next_run_at IS NOT NULL AND c.state = 'Enabled'
		  ORDER BY j.next_run_at LIMIT 1),
		(SELECT a.due_at FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		  JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE a.status = 'pending' AND a.target_host IS NULL AND j.state = 'enabled' AND c.state = 'Enabled'
		  ORDER BY a.due_at LIMIT 1),
		(SELECT date_trunc('second', ?::timestamptz) + interval '1 second'
		  WHERE EXISTS (SELECT 1 FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		    JOIN job_collections c ON c.id = j.job_collection_id
		    WHERE a.target_host IS NOT NULL AND a.status = 'pending' AND j.state = 'enabled' AND c.state = 'Enabled')),
		(SELECT min(lease_expires_at) FROM job_attempts WHERE status = 'running') - now() + ?::timestamptz,
		(SELECT min(lease_expires_at) FROM job_history WHERE status = 'Running' AND `+recentRecords("start_time", now)+`)
		  - now() + ?::timestamptz,
		(SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE needs_schedule AND state = 'enabled')
		        THEN 'epoch'::timestamptz END)
		) AS at`, now, now, now).Scan(&row).Error
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next wake: %w", err)
	}
	if row.At == nil {
		return time.Time{}, false, nil
	}
	return *row.At, true, nil
}

// DueBacklog counts the work due at now and not started: due jobs and due
// pending attempts of enabled jobs in enabled collections; attempts held
// for a target limit wait for their target, not for the engine, and are
// not counted.
func (s *Store) DueBacklog(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT count(*) FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE j.state = 'enabled' AND j.next_run_at <= ? AND c.state = 'Enabled') +
		(SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		  JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE a.status = 'pending' AND a.due_at <= ? AND a.target_host IS NULL AND j.state = 'enabled' AND c.state = 'Enabled')`,
		now, now).Scan(&n).Error
	if err != nil {
		return 0, translate("models: due backlog", err)
	}
	return n, nil
}
