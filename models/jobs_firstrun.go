package models

import (
	"context"
	"encoding/json"
	"time"
)

// FirstRun is a new first run of a job a write just scheduled: the job
// CollectionID/Name whose row still holds the write's schedule base Was
// and first run WasNext gets the schedule base Base and the first run Next
// (nil: an engine computes it).
type FirstRun struct {
	CollectionID int64      `json:"coll"`
	Name         string     `json:"name"`
	Was          time.Time  `json:"was"`
	WasNext      time.Time  `json:"was_next"`
	Base         time.Time  `json:"base"`
	Next         *time.Time `json:"next"`
}

// SetFirstRuns stores runs in one statement: a long write (an import of
// many jobs) plans again, just before it commits, the first runs that
// passed while it wrote. A job whose row no longer holds what the write
// stored (another write's schedule, or one the write kept) is left alone.
func (s *Store) SetFirstRuns(ctx context.Context, runs []FirstRun) error {
	if len(runs) == 0 {
		return nil
	}
	data, err := json.Marshal(runs)
	if err != nil {
		return translate("models: set first runs", err)
	}
	err = s.db.WithContext(ctx).Exec(`UPDATE jobs j SET schedule_base = r.base, next_run_at = r.next, needs_schedule = r.next IS NULL
		FROM json_to_recordset(?::json) AS r(coll bigint, name text, was timestamptz, was_next timestamptz, base timestamptz, next timestamptz)
		WHERE j.job_collection_id = r.coll AND lower(j.name) = lower(r.name) AND j.state = 'enabled'
		  AND j.schedule_base = r.was AND j.next_run_at = r.was_next`, string(data)).Error
	if err != nil {
		return translate("models: set first runs", err)
	}
	return nil
}
