package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Engine instances and their heartbeats (migrations/0008): an engine
// renews its row every few seconds; the running attempts of an instance
// whose heartbeat stopped are handed to the others, which record them
// interrupted (SPEC §4 "Crash") within seconds instead of waiting for their
// leases to expire.
//
// Heartbeats and leases are judged by the database's clock (SPEC §14.2):
// heartbeat_at and started_at are the database's clock_timestamp() when the
// beat was written (not the instance's clock, as before), and an instance
// is dead when heartbeat_at is older than the database's clock minus the
// dead-after time. An instance whose clock is ahead or behind therefore
// never declares a live one dead, nor is declared dead while it beats.

// Heartbeat is one beat of an engine instance.
type Heartbeat struct {
	// ID is the instance (the lease owner of its attempts).
	ID string
	// DeadAfter: an instance whose latest heartbeat is older than this, by
	// the database's clock, is dead. It must be positive.
	DeadAfter time.Duration
	// Version is the instance's release (`sked version`); it may be empty.
	Version string
	// SchemaVersion is the newest migration the instance's release knows
	// (the last of Migrations).
	SchemaVersion int
	// SkipRecovery leaves the running attempts of dead instances alone.
	// An engine sets it while its own heartbeats have not been renewed
	// without a break for DeadAfter since they failed (a database
	// outage): the others' heartbeats are stale by the same outage, and
	// their attempts in flight are not theirs to lose. False (the zero
	// value) recovers them.
	SkipRecovery bool
	// Now is the engine's clock, which places the window of recent
	// records (recentRecords) in which live leases of dead instances
	// are looked for; zero: the wall clock.
	Now time.Time
}

// HeartbeatResult is what one beat did.
type HeartbeatResult struct {
	// DatabaseTime is the database's clock (clock_timestamp()) when the
	// beat was written: the instance's new heartbeat_at. The engine
	// measures its clock offset with it.
	DatabaseTime time.Time
	// Expired counts the running attempts of dead instances whose leases
	// the beat expired.
	Expired int64
	// OlderLive says another instance whose release knows fewer
	// migrations than RecordsMigration is alive (its heartbeat within
	// DeadAfter): such a release reads no running history row, so the
	// engine starts attempts as job_attempts rows while it is
	// (ClaimRequest.AttemptRows).
	OlderLive bool
}

// heartbeatSQL renews the instance's row and expires the leases of the
// running attempts of dead instances in one statement (one round trip, so
// that the time it reads is as close as can be to the middle of the call,
// which the engine's offset measurement assumes), at one reading of the
// database's clock. The leases are set to expire a moment before that
// reading, so that a claim starting after the commit already sees them
// expired. Attempts locked by another transaction are left for the next
// beat. The engines are told to look again (a plain notification) when
// any expired. Records are looked for from recent on (recentRecords):
// a live lease is younger.
func heartbeatSQL(now time.Time) string {
	return `
	WITH t AS MATERIALIZED (SELECT clock_timestamp() AS at),
	r AS (
		INSERT INTO engine_instances (id, started_at, heartbeat_at, version, schema_version)
		SELECT ?, t.at, t.at, ?, ? FROM t
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, version = excluded.version,
			schema_version = excluded.schema_version
		RETURNING heartbeat_at
	), x AS (
		UPDATE job_attempts SET lease_expires_at = (SELECT at FROM t) - interval '1 millisecond'
		WHERE id IN (
			SELECT a.id FROM engine_instances i JOIN job_attempts a ON a.lease_owner = i.id AND a.status = 'running'
			WHERE NOT ?::boolean AND i.heartbeat_at < (SELECT at FROM t) - ? * interval '1 microsecond' AND i.id <> ?
			  AND a.lease_expires_at >= (SELECT at FROM t)
			FOR UPDATE OF a SKIP LOCKED)
		RETURNING 1
	), xr AS (
		UPDATE job_history SET lease_expires_at = (SELECT at FROM t) - interval '1 millisecond'
		WHERE ` + recentRecords("start_time", now) + ` AND (id, start_time) IN (
			SELECT h.id, h.start_time FROM engine_instances i JOIN job_history h ON h.lease_owner = i.id AND h.status = 'Running'
			  AND ` + recentRecords("h.start_time", now) + `
			WHERE NOT ?::boolean AND i.heartbeat_at < (SELECT at FROM t) - ? * interval '1 microsecond' AND i.id <> ?
			  AND h.lease_expires_at >= (SELECT at FROM t)
			FOR UPDATE OF h SKIP LOCKED)
		RETURNING 1
	), y AS (
		SELECT 1 FROM x UNION ALL SELECT 1 FROM xr
	)
	SELECT (SELECT heartbeat_at FROM r) AS database_time, (SELECT count(*) FROM y) AS expired,
		(SELECT count(*) FROM (SELECT pg_notify(?, '') FROM y LIMIT 1) n) AS notified,
		EXISTS (SELECT 1 FROM engine_instances i WHERE i.id <> ? AND i.schema_version < ?
		        AND i.heartbeat_at >= (SELECT at FROM t) - ? * interval '1 microsecond') AS older_live`
}

// Heartbeat records, in one statement, that instance hb.ID is alive now by
// the database's clock, and makes the leases of the running attempts of
// dead instances (other than hb.ID; see heartbeatSQL) expire at once, so
// that the next claim of any engine records them Failed ("interrupted")
// and applies their retry policy, as for any expired lease. It notifies
// the engines when it expired any.
func (s *Store) Heartbeat(ctx context.Context, hb Heartbeat) (HeartbeatResult, error) {
	if hb.DeadAfter <= 0 {
		return HeartbeatResult{}, fmt.Errorf("models: heartbeat: dead after %s must be positive", hb.DeadAfter)
	}
	var row struct {
		DatabaseTime *time.Time
		Expired      int64
		OlderLive    bool
	}
	dead := hb.DeadAfter.Microseconds()
	now := hb.Now
	if now.IsZero() {
		now = time.Now()
	}
	err := s.db.WithContext(ctx).Raw(heartbeatSQL(now), hb.ID, hb.Version, hb.SchemaVersion,
		hb.SkipRecovery, dead, hb.ID, hb.SkipRecovery, dead, hb.ID, NotifyChannel,
		hb.ID, RecordsMigration, dead).Scan(&row).Error
	if err != nil {
		return HeartbeatResult{}, translate("models: heartbeat", err)
	}
	if row.DatabaseTime == nil {
		return HeartbeatResult{}, errors.New("models: heartbeat: the instance's row was not written")
	}
	return HeartbeatResult{DatabaseTime: *row.DatabaseTime, Expired: row.Expired, OlderLive: row.OlderLive}, nil
}

// RemoveInstance deletes instance id's row (a graceful stop), unless it
// still holds running attempts: then the row stays, its heartbeat stops,
// and the other instances recover them as from a dead instance. It reports
// whether the row was deleted (or absent).
func (s *Store) RemoveInstance(ctx context.Context, id string) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM engine_instances i WHERE i.id = ? AND NOT EXISTS (
		SELECT 1 FROM job_attempts a WHERE a.lease_owner = i.id AND a.status = 'running') AND NOT EXISTS (
		SELECT 1 FROM job_history h WHERE h.lease_owner = i.id AND h.status = 'Running')`, id)
	if res.Error != nil {
		return false, translate("models: remove instance", res.Error)
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	var left int64
	if err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM engine_instances WHERE id = ?`, id).Scan(&left).Error; err != nil {
		return false, translate("models: remove instance", err)
	}
	return left == 0, nil
}

// EngineInstance is one row of engine_instances.
type EngineInstance struct {
	ID string
	// StartedAt and HeartbeatAt are by the database's clock (see
	// Heartbeat).
	StartedAt   time.Time
	HeartbeatAt time.Time
	// Version is the instance's release, empty for a release older than
	// migration 0032.
	Version string
	// SchemaVersion is the newest migration the instance's release knows,
	// 0 for a release older than migration 0032.
	SchemaVersion int
}

// EngineInstances returns the instances with a row, by id.
func (s *Store) EngineInstances(ctx context.Context) ([]EngineInstance, error) {
	var out []EngineInstance
	err := s.db.WithContext(ctx).Raw(`SELECT id, started_at, heartbeat_at, version, schema_version FROM engine_instances ORDER BY id`).Scan(&out).Error
	if err != nil {
		return nil, translate("models: engine instances", err)
	}
	return out, nil
}

// pruneInstances deletes the rows of instances whose heartbeat is older
// than maxAge by the database's clock (heartbeat_at's) and that hold no
// running attempt.
func pruneInstances(db *gorm.DB, maxAge time.Duration) (int64, error) {
	res := db.Exec(`DELETE FROM engine_instances i WHERE i.heartbeat_at < now() - ? * interval '1 microsecond'
		AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.lease_owner = i.id AND a.status = 'running')
		AND NOT EXISTS (SELECT 1 FROM job_history h WHERE h.lease_owner = i.id AND h.status = 'Running')`,
		maxAge.Microseconds())
	return res.RowsAffected, res.Error
}
