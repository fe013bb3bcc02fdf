package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Engine instances and their heartbeats (migrations/0008): an engine
// renews its row every few seconds; the running attempts of an instance
// whose heartbeat stopped are handed to the others, which record them
// interrupted (SPEC §4 "Crash") within seconds instead of waiting for their
// leases to expire.

// Heartbeat is one beat of an engine instance.
type Heartbeat struct {
	// ID is the instance (the lease owner of its attempts).
	ID string
	// Now is the instance's clock; it becomes heartbeat_at (and started_at
	// on the first beat).
	Now time.Time
	// DeadBefore: an instance whose latest heartbeat is older is dead.
	DeadBefore time.Time
	// Version is the instance's release (`sked version`); it may be empty.
	Version string
	// SchemaVersion is the newest migration the instance's release knows
	// (the last of Migrations).
	SchemaVersion int
}

// Heartbeat records, in one transaction, that instance hb.ID is alive at
// hb.Now, and makes the leases of the running attempts of dead instances
// (other than hb.ID) expire at once, so that the next claim of any engine
// records them Failed ("interrupted") and applies their retry policy, as
// for any expired lease. It notifies the engines when it expired any, and
// returns how many. Attempts locked by another transaction are left for
// the next beat.
func (s *Store) Heartbeat(ctx context.Context, hb Heartbeat) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Exec(`INSERT INTO engine_instances (id, started_at, heartbeat_at, version, schema_version) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, version = excluded.version,
				schema_version = excluded.schema_version`, hb.ID, hb.Now, hb.Now, hb.Version, hb.SchemaVersion).Error
		if err != nil {
			return fmt.Errorf("renew: %w", err)
		}
		// Expired a moment before now, so that a claim at the same instant
		// already sees them expired.
		res := tx.Exec(`UPDATE job_attempts SET lease_expires_at = ?
			WHERE id IN (
				SELECT a.id FROM engine_instances i JOIN job_attempts a ON a.lease_owner = i.id AND a.status = 'running'
				WHERE i.heartbeat_at < ? AND i.id <> ? AND a.lease_expires_at >= ?
				FOR UPDATE OF a SKIP LOCKED)`, hb.Now.Add(-time.Millisecond), hb.DeadBefore, hb.ID, hb.Now)
		if res.Error != nil {
			return fmt.Errorf("expire the leases of dead instances: %w", res.Error)
		}
		n = res.RowsAffected
		if n > 0 {
			return tx.Exec(`SELECT pg_notify(?, ?)`, NotifyChannel, DuePayload(hb.Now)).Error
		}
		return nil
	})
	if err != nil {
		return 0, translate("models: heartbeat", err)
	}
	return n, nil
}

// RemoveInstance deletes instance id's row (a graceful stop), unless it
// still holds running attempts: then the row stays, its heartbeat stops,
// and the other instances recover them as from a dead instance. It reports
// whether the row was deleted (or absent).
func (s *Store) RemoveInstance(ctx context.Context, id string) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM engine_instances i WHERE i.id = ? AND NOT EXISTS (
		SELECT 1 FROM job_attempts a WHERE a.lease_owner = i.id AND a.status = 'running')`, id)
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
	ID          string
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
// than before and that hold no running attempt.
func pruneInstances(db *gorm.DB, before time.Time) (int64, error) {
	res := db.Exec(`DELETE FROM engine_instances i WHERE i.heartbeat_at < ? AND NOT EXISTS (
		SELECT 1 FROM job_attempts a WHERE a.lease_owner = i.id AND a.status = 'running')`, before)
	return res.RowsAffected, res.Error
}
