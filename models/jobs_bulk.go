package models

// The bulk actions of the "All jobs" page and POST /api/v1/jobs/bulk: find
// the jobs of a selection (ids, names or every job a search selects) among
// the collections a user may see, then run now or delete them in one
// transaction each (enable and disable: SetJobsState, jobs_state.go).

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// BulkJob is a job of a bulk selection: its id, name and state, and where
// it lives.
type BulkJob struct {
	ID            int64
	Name          string
	State         jobdef.State
	CollectionID  int64
	Collection    string
	ResourceGroup string
	WorkspaceID   string
}

// Path is the job as "workspace/resource group/collection/job".
func (r BulkJob) Path() string {
	return r.WorkspaceID + "/" + r.ResourceGroup + "/" + r.Collection + "/" + r.Name
}

// bulkJobSelect reads BulkJobs of jobs j.
const bulkJobSelect = `SELECT j.id, j.name, j.state, j.job_collection_id AS collection_id, c.name AS collection,
	rg.name AS resource_group, rg.workspace_id
	FROM jobs_with_results j JOIN job_collections c ON c.id = j.job_collection_id
	JOIN resource_groups rg ON rg.id = c.resource_group_id`

// BulkJobsByID returns the jobs ids that belong to one of collections (in
// the order of ids, repeats once) and the ids that do not: unknown jobs
// and the jobs of collections not given (which a user may not see) alike.
func (s *Store) BulkJobsByID(ctx context.Context, collections []VisibleCollection, ids []int64) ([]BulkJob, []int64, error) {
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return nil, nil, nil
	}
	var rows []BulkJob
	if len(collections) > 0 {
		err := s.db.WithContext(ctx).Raw(bulkJobSelect+` WHERE j.id IN ? AND j.job_collection_id IN ?`,
			ids, collectionIDs(collections)).Scan(&rows).Error
		if err != nil {
			return nil, nil, translate("models: jobs by id", err)
		}
	}
	byID := make(map[int64]BulkJob, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	var found []BulkJob
	var missing []int64
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			found = append(found, r)
		} else {
			missing = append(missing, id)
		}
	}
	return found, missing, nil
}

// JobName names a job by its collection and name (case-insensitive).
type JobName struct {
	CollectionID int64
	Name         string
}

// BulkJobsByName returns the jobs names (in their order, repeats once) and
// the indexes in names of those that do not exist.
func (s *Store) BulkJobsByName(ctx context.Context, names []JobName) ([]BulkJob, []int, error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	var conds []string
	var args []any
	for _, n := range names {
		conds = append(conds, "(j.job_collection_id = ? AND lower(j.name) = lower(?))")
		args = append(args, n.CollectionID, n.Name)
	}
	var rows []BulkJob
	if err := s.db.WithContext(ctx).Raw(bulkJobSelect+` WHERE `+strings.Join(conds, " OR "), args...).Scan(&rows).Error; err != nil {
		return nil, nil, translate("models: jobs by name", err)
	}
	byName := make(map[JobName]BulkJob, len(rows))
	for _, r := range rows {
		byName[JobName{r.CollectionID, strings.ToLower(r.Name)}] = r
	}
	var found []BulkJob
	var missing []int
	seen := map[int64]bool{}
	for i, n := range names {
		r, ok := byName[JobName{n.CollectionID, strings.ToLower(n.Name)}]
		switch {
		case !ok:
			missing = append(missing, i)
		case !seen[r.ID]:
			seen[r.ID] = true
			found = append(found, r)
		}
	}
	return found, missing, nil
}

// SearchBulkJobs returns the jobs p selects (its search, filters and last
// result; not its order, cursor or limit), by name, at most limit of them
// and one more when there are more.
func (s *Store) SearchBulkJobs(ctx context.Context, p JobSearchParams, limit int) ([]BulkJob, error) {
	if !p.AllCollections && len(p.Collections) == 0 {
		return nil, nil
	}
	cond, args := bulkSearchCond(p)
	var rows []BulkJob
	err := s.db.WithContext(ctx).Raw(bulkJobSelect+` WHERE `+sparseConds(cond)+` ORDER BY lower(j.name), j.id LIMIT ?`,
		append(args, limit+1)...).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: search job refs", err)
	}
	return rows, nil
}

// bulkSearchCond is the WHERE condition (over jobs j) and its arguments
// of the jobs p selects: its search, filters and last result.
func bulkSearchCond(p JobSearchParams) (string, []any) {
	where, args := searchConds(p)
	where = append(where, lastResultCond(p.LastResult)...)
	if p.LastResult != "" && p.LastResult != "none" {
		args = append(args, p.LastResult)
	}
	if len(where) == 0 {
		return "true", args
	}
	return strings.Join(where, " AND "), args
}

// CountSearchJobs counts the jobs p selects (as SearchBulkJobs), up to
// upTo: a larger count is returned as upTo+1. Dense says the search words
// are known to match many jobs (JobSearchPage.Dense): the jobs are then
// read in table order until upTo+1 matched, rather than every match
// through the trigram index.
func (s *Store) CountSearchJobs(ctx context.Context, p JobSearchParams, upTo int, dense bool) (int64, error) {
	if !p.AllCollections && len(p.Collections) == 0 {
		return 0, nil
	}
	cond, args := bulkSearchCond(p)
	var n int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if dense {
			if err := tx.Exec(`SET LOCAL enable_bitmapscan = off`).Error; err != nil {
				return err
			}
		} else {
			cond = sparseConds(cond)
		}
		return tx.Raw(`SELECT count(*) FROM (SELECT 1 FROM jobs_with_results j WHERE `+cond+` LIMIT ?) x`,
			append(args, upTo+1)...).Scan(&n).Error
	})
	if err != nil {
		return 0, translate("models: count jobs", err)
	}
	return n, nil
}

// lastResultCond is the condition of the last result filter (with one
// argument, the status, unless it is "" or "none"), on the job's last
// result kept by the history writes (migrations 0023 and 0029: a column of
// jobs_with_results j).
func lastResultCond(result string) []string {
	switch result {
	case "":
		return nil
	case "none":
		return []string{"j.last_status IS NULL"}
	}
	return []string{"j.last_status = ?"}
}

// JobsByID returns the jobs ids (in id order), or ErrNotFound when any is
// missing.
func (s *Store) JobsByID(ctx context.Context, ids []int64) ([]Job, error) {
	ids = uniqueIDs(ids)
	var out []Job
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error; err != nil {
		return nil, translate("models: jobs by id", err)
	}
	if len(out) != len(ids) {
		return nil, translate("models: jobs by id", ErrNotFound)
	}
	return out, nil
}

// DeleteJobs deletes the jobs ids with their history in one transaction,
// or returns ErrNotFound when any is missing: then none is deleted.
func (s *Store) DeleteJobs(ctx context.Context, ids []int64) error {
	ids = uniqueIDs(ids)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := lockJobs(tx, ids); err != nil {
			return err
		}
		_, err := deleteJobs(tx, "j.id IN ?", ids)
		return err
	})
	if err != nil {
		return translate("models: delete jobs", err)
	}
	return nil
}

// RunNowResult is the outcome of RunJobsNow for job ID: the attempt it
// queued (Attempt > 0), or why not (Refused: ErrJobNotEnabled for a
// disabled job, ErrJobFinished for a completed or faulted one).
type RunNowResult struct {
	ID      int64
	State   jobdef.State
	Attempt int64
	Refused error
}

// RunJobsNow queues an extra occurrence of each enabled job of ids at now,
// as RunNow does for one, in one transaction, and wakes the engines once.
// Disabled, completed and faulted jobs are left alone (their Refused
// says why). It returns one result per id in the order of ids (repeats
// once), or ErrNotFound when any id is not a job: then nothing is queued.
func (s *Store) RunJobsNow(ctx context.Context, ids []int64, now time.Time) ([]RunNowResult, error) {
	ids = uniqueIDs(ids)
	now = now.Truncate(time.Microsecond)
	var out []RunNowResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		cur, err := lockJobs(tx, ids)
		if err != nil {
			return err
		}
		out = make([]RunNowResult, len(ids))
		var run []int64
		for i, id := range ids {
			j := cur[id]
			out[i] = RunNowResult{ID: id, State: j.State}
			switch {
			case j.State.Final():
				out[i].Refused = ErrJobFinished
			case j.State != jobdef.Enabled:
				out[i].Refused = ErrJobNotEnabled
			default:
				run = append(run, id)
			}
		}
		if len(run) == 0 {
			return nil
		}
		var attempts []struct{ JobID, ID int64 }
		if err := tx.Raw(`WITH o AS (
				UPDATE jobs SET occurrence_count = occurrence_count + 1 WHERE id IN ? RETURNING id, occurrence_count)
			INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at)
			SELECT o.id, ?, 'MainAction', 1, o.occurrence_count, 'pending', ? FROM o
			RETURNING job_id, id`, run, now, now).Scan(&attempts).Error; err != nil {
			return err
		}
		byJob := make(map[int64]int64, len(attempts))
		for _, a := range attempts {
			byJob[a.JobID] = a.ID
		}
		for i := range out {
			out[i].Attempt = byJob[out[i].ID]
		}
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return nil, translate("models: run jobs now", err)
	}
	return out, nil
}
