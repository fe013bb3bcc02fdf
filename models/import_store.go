package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ImportCollection is a collection an import puts its jobs in.
type ImportCollection struct {
	Ref CollectionRef
	// Settings create the collection when it does not exist (nil: the
	// defaults, sku Standard and state Enabled); with Replace they also
	// replace the settings of the one that exists, as PutCollection does.
	Settings *JobCollection
	Replace  bool
}

// ImportJob is a job an import writes: Write, in the collection
// Collections[Collection] of its batch (Write.CollectionID is set by
// ApplyImport).
type ImportJob struct {
	Collection int
	Write      JobWrite
}

// ImportBatch is what ApplyImport writes.
type ImportBatch struct {
	Collections []ImportCollection
	Jobs        []ImportJob
	// Progress, when not nil, is told how many jobs are written so far,
	// from time to time (after every statement).
	Progress func(done int)
}

// ImportResult says what ApplyImport did.
type ImportResult struct {
	// CollectionCreated and JobCreated parallel the batch's Collections
	// and Jobs.
	CollectionCreated []bool
	JobCreated        []bool
	// CollectionIDs are the ids of the batch's Collections.
	CollectionIDs []int64
}

// ApplyImport writes a whole import in one transaction: first its
// collections (created when missing, replaced when asked), then its jobs
// as SaveJobs does (with the next runs the writes carry), then, for a
// large import, the planner's statistics of jobs (analyzeAfterImport). Any refusal (a QuotaError, a resource group or
// collection name the database refuses, a workspace that does not exist:
// ErrNotFound) rolls everything back.
func (s *Store) ApplyImport(ctx context.Context, b ImportBatch) (*ImportResult, error) {
	res := &ImportResult{CollectionCreated: make([]bool, len(b.Collections))}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		ids := make([]int64, len(b.Collections))
		for i, ic := range b.Collections {
			id, created, err := importCollectionTx(tx, ic)
			if err != nil {
				return fmt.Errorf("collection %s/%s/%s: %w", ic.Ref.WorkspaceID, ic.Ref.ResourceGroup, ic.Ref.Name, err)
			}
			ids[i], res.CollectionCreated[i] = id, created
		}
		res.CollectionIDs = ids
		writes := make([]JobWrite, len(b.Jobs))
		for i, j := range b.Jobs {
			if j.Collection < 0 || j.Collection >= len(ids) {
				return fmt.Errorf("job %q: collection index %d is not in the batch", j.Write.Name, j.Collection)
			}
			writes[i] = j.Write
			writes[i].CollectionID = ids[j.Collection]
		}
		var err error
		if res.JobCreated, err = s.saveJobsTx(tx, writes, b.Progress); err != nil {
			return err
		}
		return analyzeAfterImport(tx, len(writes))
	})
	if err != nil {
		return nil, translate("models: apply import", err)
	}
	return res, nil
}

// importCollectionTx makes sure the collection of ic exists inside tx and
// returns its id and whether it was created.
func importCollectionTx(tx *gorm.DB, ic ImportCollection) (int64, bool, error) {
	if !ic.Replace {
		var ids []int64
		err := tx.Raw(`SELECT c.id FROM job_collections c JOIN resource_groups rg ON rg.id = c.resource_group_id
			WHERE rg.workspace_id = ? AND lower(rg.name) = lower(?) AND lower(c.name) = lower(?)`,
			ic.Ref.WorkspaceID, ic.Ref.ResourceGroup, ic.Ref.Name).Scan(&ids).Error
		if err != nil {
			return 0, false, err
		}
		if len(ids) > 0 {
			return ids[0], false, nil
		}
	}
	c := JobCollection{SKU: SKUStandard, State: CollectionEnabled}
	if ic.Settings != nil {
		c = *ic.Settings
	}
	created, err := putCollectionTx(tx, ic.Ref, &c)
	if err != nil {
		return 0, false, err
	}
	return c.ID, created, nil
}

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
