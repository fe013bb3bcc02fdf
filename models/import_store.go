package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// SaveJobs creates or replaces the jobs of writes, in order, in one
// transaction: either every write is applied or none is. It returns, per
// write, whether it created its job. Each write is checked as SaveJob
// checks it (a job beyond its MaxJobs is a *QuotaError, MustExist on a
// missing job ErrNotFound); the first refusal rolls back every write.
func (s *Store) SaveJobs(ctx context.Context, writes []JobWrite) ([]bool, error) {
	var created []bool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		created, err = s.saveJobsTx(tx, writes, nil)
		return err
	})
	if err != nil {
		return nil, translate("models: save jobs", err)
	}
	return created, nil
}

// saveJobsTx is SaveJobs inside tx; progress, when not nil, is told how
// many writes are done after each chunk. It makes the checks of saveJobTx
// for all writes at once (the collections locked in id order, their jobs
// read once) and then inserts the jobs in chunks of multi-row upserts, so
// that thousands of jobs take a few statements instead of four each.
func (s *Store) saveJobsTx(tx *gorm.DB, writes []JobWrite, progress func(done int)) ([]bool, error) {
	created := make([]bool, len(writes))
	if len(writes) == 0 {
		return created, nil
	}
	type jobKey struct {
		coll int64
		name string
	}
	var collIDs []int64
	seen := map[int64]bool{}
	for _, w := range writes {
		if !seen[w.CollectionID] {
			seen[w.CollectionID] = true
			collIDs = append(collIDs, w.CollectionID)
		}
	}
	var locked []int64
	if err := tx.Raw(`SELECT id FROM job_collections WHERE id IN ? ORDER BY id FOR UPDATE`, collIDs).Scan(&locked).Error; err != nil {
		return nil, err
	}
	if len(locked) != len(collIDs) {
		return nil, ErrNotFound
	}
	var rows []struct {
		JobCollectionID int64
		Key             string
	}
	if err := tx.Raw(`SELECT job_collection_id, lower(name) AS key FROM jobs WHERE job_collection_id IN ?`, collIDs).
		Scan(&rows).Error; err != nil {
		return nil, err
	}
	exists := make(map[jobKey]bool, len(rows)+len(writes))
	count := map[int64]int64{}
	for _, r := range rows {
		exists[jobKey{r.JobCollectionID, r.Key}] = true
		count[r.JobCollectionID]++
	}
	now := time.Now().UTC()
	const chunk = 1000 // rows per statement: 8 parameters each, far below PostgreSQL's 65,535
	var (
		sql   strings.Builder
		args  []any
		inRow = map[jobKey]bool{}
		done  int
	)
	flush := func(upTo int) error {
		if len(args) == 0 {
			return nil
		}
		if err := tx.Exec(`INSERT INTO jobs (job_collection_id, name, definition, secrets, state, ended_at,
				schedule_base, needs_schedule) VALUES `+
			sql.String()+`
			ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
			SET definition = EXCLUDED.definition, secrets = EXCLUDED.secrets, state = EXCLUDED.state,
			    ended_at = CASE WHEN EXCLUDED.state IN ('completed', 'faulted')
			                    THEN coalesce(jobs.ended_at, EXCLUDED.ended_at) END,
			    updated_at = now(), `+jobScheduleSet("EXCLUDED.definition"), args...).Error; err != nil {
			return err
		}
		sql.Reset()
		args = args[:0]
		clear(inRow)
		done = upTo
		if progress != nil {
			progress(done)
		}
		return nil
	}
	for i, w := range writes {
		key := jobKey{w.CollectionID, strings.ToLower(w.Name)}
		if !exists[key] {
			if w.MustExist {
				return nil, fmt.Errorf("job %q: %w", w.Name, ErrNotFound)
			}
			if n := count[w.CollectionID]; w.MaxJobs > 0 && n >= int64(w.MaxJobs) {
				return nil, &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
					"The collection already holds %d jobs, its quota maxJobCount: delete a job or raise the quota.", n)}
			}
			exists[key] = true
			count[w.CollectionID]++
			created[i] = true
		}
		sealed, err := s.box.seal(w.Secrets)
		if err != nil {
			return nil, err
		}
		wnow := now
		if !w.Now.IsZero() {
			wnow = w.Now
		}
		state, ended := w.stateAndEnd(wnow)
		sched := newJobSchedule(jobdef.State(state), nil, wnow)
		// One statement may not upsert the same row twice.
		if inRow[key] || len(args) >= chunk*8 {
			if err := flush(i); err != nil {
				return nil, err
			}
		}
		if len(args) > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, w.CollectionID, w.Name, string(w.Definition), sealed, state, ended, sched.Base, sched.NeedsSchedule)
		inRow[key] = true
	}
	if err := flush(len(writes)); err != nil {
		return nil, err
	}
	return created, nil
}

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
}

// ApplyImport writes a whole import in one transaction: first its
// collections (created when missing, replaced when asked), then its jobs
// as SaveJobs does. Any refusal (a QuotaError, a resource group or
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
		writes := make([]JobWrite, len(b.Jobs))
		for i, j := range b.Jobs {
			if j.Collection < 0 || j.Collection >= len(ids) {
				return fmt.Errorf("job %q: collection index %d is not in the batch", j.Write.Name, j.Collection)
			}
			writes[i] = j.Write
			writes[i].CollectionID = ids[j.Collection]
		}
		var err error
		res.JobCreated, err = s.saveJobsTx(tx, writes, b.Progress)
		return err
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
	c := JobCollection{SKU: SKUStandard, State: "Enabled"}
	if ic.Settings != nil {
		c = *ic.Settings
	}
	created, err := putCollectionTx(tx, ic.Ref, &c)
	if err != nil {
		return 0, false, err
	}
	return c.ID, created, nil
}

// StoredJob is a job an import may replace: its id, its name as stored
// and its opened secrets (which a replacing definition that leaves them
// out keeps).
type StoredJob struct {
	ID      int64
	Name    string
	Secrets jobdef.Secrets
}

// JobsWithSecrets returns the jobs of collectionID keyed by their
// lowercase name, with their secrets opened.
func (s *Store) JobsWithSecrets(ctx context.Context, collectionID int64) (map[string]StoredJob, error) {
	var rows []struct {
		ID      int64
		Name    string
		Secrets []byte
	}
	err := s.db.WithContext(ctx).Raw(`SELECT id, name, secrets FROM jobs WHERE job_collection_id = ?`, collectionID).
		Scan(&rows).Error
	if err != nil {
		return nil, translate("models: jobs with secrets", err)
	}
	out := make(map[string]StoredJob, len(rows))
	for _, r := range rows {
		sec, err := s.box.open(r.Secrets)
		if err != nil {
			return nil, fmt.Errorf("models: jobs with secrets: job %d: %w", r.ID, err)
		}
		out[strings.ToLower(r.Name)] = StoredJob{ID: r.ID, Name: r.Name, Secrets: sec}
	}
	return out, nil
}

// WorkspaceIDs returns the ids of every workspace, in order (an import
// checks the subscriptions its file names against them; an export by an
// administrator without a user covers them all).
func (s *Store) WorkspaceIDs(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.db.WithContext(ctx).Raw(`SELECT id FROM workspaces ORDER BY id`).Scan(&out).Error; err != nil {
		return nil, translate("models: workspace ids", err)
	}
	return out, nil
}
