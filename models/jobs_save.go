package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// JobWrite is a job to create or replace by SaveJob, SaveJobs or
// ApplyImport.
type JobWrite struct {
	CollectionID int64
	Name         string
	// Definition is the canonical definition without secrets.
	Definition json.RawMessage
	// Secrets are sealed into the job's row (nil or empty: none).
	Secrets jobdef.Secrets
	// State is enabled, disabled, completed or faulted; EndedAt is set
	// with the last two (now when nil).
	State   jobdef.State
	EndedAt *time.Time
	// MaxJobs refuses the creation of a job beyond this many in the
	// collection with a QuotaError (checked under the collection's counts
	// row, checkJobQuota, so concurrent writers cannot overshoot). Zero
	// means no limit.
	MaxJobs int
	// MustExist refuses to create the job (ErrNotFound instead): PATCH.
	MustExist bool
	// Now is the writer's clock: the schedule base of a job this write
	// creates, enables or changes, and the end of a job it ends (zero:
	// time.Now).
	Now time.Time
	// NextRunAt is the job's first run as the writer's planner computed
	// it from the rule compiled for Now (plan.Decide for a job to
	// schedule), stored with the row so that no engine has to schedule
	// the job; nil leaves it to an engine (needs_schedule). It is used
	// only when the write schedules the job (see jobScheduleSet).
	NextRunAt *time.Time
	// StateNote is the note of a disabled job (SPEC §13.2; ignored for
	// other states: enabling clears it); StateBy is who writes (the
	// actor's name). When the write changes the state or the note, they
	// become the job's StateChangedBy, and Now its StateChangedAt.
	StateNote, StateBy string
	// Locked, when not nil, is the job this write replaces as the caller
	// read it with its lock (Store.ReadJobToChange with lock) in the
	// transaction of the write: SaveJob then takes no lock of its own and
	// compares the state with Locked's. nil: SaveJob locks the job it
	// replaces itself.
	Locked *JobToChange
}

// SaveJob creates or replaces a job in one transaction, sealing its
// secrets, and returns the stored job and whether it was created. A
// replaced job keeps its id, counters and history.
func (s *Store) SaveJob(ctx context.Context, w JobWrite) (*Job, bool, error) {
	var out *Job
	var created bool
	// Inside a transaction (the catalog's) it runs in it without a
	// savepoint: its error aborts that transaction anyway.
	err := s.db.WithContext(ctx).Session(&gorm.Session{DisableNestedTransaction: true}).Transaction(func(tx *gorm.DB) error {
		var err error
		out, created, err = s.saveJobTx(tx, w)
		return err
	})
	if err != nil {
		return nil, false, translate("models: save job", err)
	}
	return out, created, nil
}

// saveJobTx is SaveJob inside tx. It takes no collection lock: a job
// that exists is locked and replaced; a job to create is inserted by the
// upsert (a concurrent creation of the same name makes it a replacement,
// which the upsert reports), its collection's existence checked by the
// foreign key, and the quota checked where the counts are added to, under
// their row's lock (countJobWrite), so that creations of one collection
// queue only there, at the end of their transactions (locks.go).
func (s *Store) saveJobTx(tx *gorm.DB, w JobWrite) (*Job, bool, error) {
	var before []jobdef.State // the replaced job's state
	if w.Locked != nil {
		before = []jobdef.State{w.Locked.State}
	} else if err := tx.Raw(`SELECT state FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?) FOR NO KEY UPDATE`,
		w.CollectionID, w.Name).Scan(&before).Error; err != nil {
		return nil, false, err
	}
	if len(before) == 0 && w.MustExist {
		return nil, false, ErrNotFound
	}
	// The job as written, with its results (a replaced job keeps them),
	// from the upsert's own statement.
	var rows []struct {
		Job
		Inserted bool
	}
	if err := s.upsertJobsReturning(tx, []JobWrite{w}, nil, upsertReturnsJobs, func(chunk *gorm.DB) error {
		return chunk.Scan(&rows).Error
	}); err != nil {
		return nil, false, err
	}
	if len(rows) != 1 {
		return nil, false, fmt.Errorf("upsert of job %q wrote %d rows", w.Name, len(rows))
	}
	j, created := rows[0].Job, rows[0].Inserted
	if mayTrigger(w, created) {
		if err := syncTriggers(tx, []int64{j.ID}); err != nil {
			return nil, false, err
		}
	}
	if err := countJobWrite(tx, w, before, j.State, created); err != nil {
		return nil, false, err
	}
	return &j, created, nil
}

// countJobWrite counts the write w of one job into its collection's
// counts, last in its transaction, and checks the quota of a job it
// created. before is the job's state as locked before the write (none:
// there was no job), state its state now. A replacement that keeps the
// state leaves the counts as they are, and does not queue for their row
// with every other writer of the collection; a creation or a change of
// state adds to them (addJobCount), where the quota is checked: the row
// stays locked to the commit, so that concurrent creations pass one at a
// time and never overshoot. A replacement of a job created meanwhile by
// another transaction (no state before, none created), whose state before
// is unknown, the first job of a collection (no counts row) and a row
// found wrong (addJobCount) recount the collection (refreshJobCounts)
// instead.
func countJobWrite(tx *gorm.DB, w JobWrite, before []jobdef.State, state jobdef.State, created bool) error {
	var from jobdef.State
	switch {
	case created:
	case len(before) == 0:
		return refreshJobCounts(tx, w.CollectionID)
	case before[0] == state:
		return nil
	default:
		from = before[0]
	}
	total, ok, err := addJobCount(tx, w.CollectionID, from, state)
	if err != nil {
		return err
	}
	if !ok {
		if err := refreshJobCounts(tx, w.CollectionID); err != nil {
			return err
		}
		if created {
			return checkJobQuota(tx, []JobWrite{w}, []upserted{{CollectionID: w.CollectionID, Inserted: true}})
		}
		return nil
	}
	if created && w.MaxJobs > 0 {
		return overQuota(total, 1, int64(w.MaxJobs))
	}
	return nil
}

// jobStateNoteSet is the SET list of the state note columns of a job
// that an upsert replaces (after jobScheduleSet): the note is the write's
// (EXCLUDED.state_note); who and when (two placeholders: the writer's
// name and now) change only when the state or the note does.
const jobStateNoteSet = `state_note = EXCLUDED.state_note,
		    state_changed_by = CASE WHEN jobs.state <> EXCLUDED.state OR jobs.state_note <> EXCLUDED.state_note
		                            THEN ?::text ELSE jobs.state_changed_by END,
		    state_changed_at = CASE WHEN jobs.state <> EXCLUDED.state OR jobs.state_note <> EXCLUDED.state_note
		                            THEN ?::timestamptz ELSE jobs.state_changed_at END`

// stateNoteCols are the state note columns of a job that a write inserts:
// a job created disabled carries the note, its writer and now; any other
// none of them.
type stateNoteCols struct {
	Note, By string
	At       *time.Time
}

// noteRow returns the state note columns w inserts for state at now.
func (w JobWrite) noteRow(state jobdef.State, now time.Time) stateNoteCols {
	if state != jobdef.Disabled {
		return stateNoteCols{}
	}
	return stateNoteCols{Note: w.StateNote, By: w.StateBy, At: &now}
}

// nowOr returns w.Now, or now when it is zero.
func (w JobWrite) nowOr(now time.Time) time.Time {
	if w.Now.IsZero() {
		return now
	}
	return w.Now
}

// stateAndEnd returns the state to store (enabled when empty) and, for
// completed and faulted, when the job ended (EndedAt, else now).
func (w JobWrite) stateAndEnd(now time.Time) (jobdef.State, *time.Time) {
	state := w.State
	if state == "" {
		state = jobdef.Enabled
	}
	if !state.Final() {
		return state, nil
	}
	if w.EndedAt != nil {
		return state, w.EndedAt
	}
	return state, &now
}

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
// many writes are done after each statement. It makes the checks of
// saveJobTx for all writes at once (the collections locked in id order,
// their jobs read once) and then upserts the jobs (upsertJobs).
func (s *Store) saveJobsTx(tx *gorm.DB, writes []JobWrite, progress func(done int)) ([]bool, error) {
	created := make([]bool, len(writes))
	if len(writes) == 0 {
		return created, nil
	}
	collIDs := collectionsOf(writes)
	locked, err := lockCollections(tx, collIDs...)
	if err != nil {
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
	for i, w := range writes {
		key := w.key()
		if exists[key] {
			continue
		}
		if w.MustExist {
			return nil, fmt.Errorf("job %q: %w", w.Name, ErrNotFound)
		}
		if err := w.checkQuota(count[w.CollectionID]); err != nil {
			return nil, err
		}
		exists[key] = true
		count[w.CollectionID]++
		created[i] = true
	}
	if err := lockJobsOfWrites(tx, writes); err != nil {
		return nil, err
	}
	up, err := s.upsertJobs(tx, writes, progress)
	if err != nil {
		return nil, err
	}
	if err := syncTriggersOf(tx, writes, up); err != nil {
		return nil, err
	}
	if err := refreshJobCounts(tx, collIDs...); err != nil {
		return nil, err
	}
	// The count above holds still for writers that lock the collection;
	// single creations do not (saveJobTx): the counts decide.
	if err := checkJobQuota(tx, writes, up); err != nil {
		return nil, err
	}
	return created, nil
}

// jobKey is a job's identity before it has an id: its collection and its
// name folded to lower case (the unique key jobs_collection_name_key).
type jobKey struct {
	coll int64
	name string
}

// key returns the jobKey of the job w writes.
func (w JobWrite) key() jobKey { return jobKey{w.CollectionID, strings.ToLower(w.Name)} }

// checkQuota returns a *QuotaError when w would create a job in a
// collection that already holds n jobs, its MaxJobs or more.
func (w JobWrite) checkQuota(n int64) error {
	if w.MaxJobs <= 0 || n < int64(w.MaxJobs) {
		return nil
	}
	return &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
		"The collection already holds %d jobs, its quota maxJobCount: delete a job or raise the quota.", n)}
}

// checkJobQuota returns a *QuotaError when writes (upserted as up says)
// created jobs in a collection that now holds more than the MaxJobs of
// its writes. Call it after refreshJobCounts of those collections, which
// holds their counts rows locked to the end of the transaction: every
// creation of a collection passes there one at a time and counts every
// committed one before it, so that concurrent creations never overshoot
// the quota.
func checkJobQuota(tx *gorm.DB, writes []JobWrite, up []upserted) error {
	made := map[int64]int64{}
	for _, u := range up {
		if u.Inserted {
			made[u.CollectionID]++
		}
	}
	limit := map[int64]int{}
	for _, w := range writes {
		if made[w.CollectionID] > 0 && w.MaxJobs > 0 {
			limit[w.CollectionID] = w.MaxJobs
		}
	}
	if len(limit) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(limit))
	for id := range limit {
		ids = append(ids, id)
	}
	var totals []struct {
		JobCollectionID int64
		Total           int64
	}
	if err := tx.Raw(`SELECT job_collection_id, enabled + disabled + completed + faulted AS total
		FROM collection_job_counts WHERE job_collection_id IN ? ORDER BY job_collection_id`, ids).Scan(&totals).Error; err != nil {
		return fmt.Errorf("check the job quota: %w", err)
	}
	for _, t := range totals {
		if err := overQuota(t.Total, made[t.JobCollectionID], int64(limit[t.JobCollectionID])); err != nil {
			return err
		}
	}
	return nil
}

// overQuota returns a *QuotaError when a collection that holds total jobs,
// made of them by the write, holds more than limit.
func overQuota(total, made, limit int64) error {
	if total <= limit {
		return nil
	}
	if held := total - made; held < limit {
		return &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
			"The collection holds %d jobs: %d more would exceed its quota maxJobCount of %d.", held, made, limit)}
	}
	return JobWrite{MaxJobs: int(limit)}.checkQuota(total - made)
}

// collectionsOf returns the collections of writes, each once, in the
// order they first appear.
func collectionsOf(writes []JobWrite) []int64 {
	var ids []int64
	seen := map[int64]bool{}
	for _, w := range writes {
		if !seen[w.CollectionID] {
			seen[w.CollectionID] = true
			ids = append(ids, w.CollectionID)
		}
	}
	return ids
}

// upserted is a job upsertJobs wrote: its id, its collection, and
// whether it inserted the row (xmax = 0 of the row it returns) rather
// than replaced one.
type upserted struct {
	ID           int64
	CollectionID int64 `gorm:"column:job_collection_id"`
	Inserted     bool
}

// upsertJobChunk is how many rows one upsert statement of upsertJobs
// holds at most: 12 parameters each, far below PostgreSQL's 65,535.
const upsertJobChunk = 1000

// upsertJobs is the one statement that writes jobs: it inserts the jobs of
// writes, already checked (SaveJob, SaveJobs and imports check them
// first), or replaces those that exist under their names, sealing their
// secrets and scheduling them (newJobSchedule, jobScheduleSet), in chunks
// of multi-row upserts so that thousands of jobs take a few statements.
// The same statement keeps what the store derives from each job: it
// writes the facets of the jobs it wrote (job_facets_of, the expressions
// of job_facets_derived) and the results rows of those it inserted; the
// job counts of their collections are the caller's (refreshJobCounts,
// after its last change of jobs). The caller holds the locks of the jobs
// it replaces (saveJobTx its one job, saveJobsTx every job of its writes
// in id order with lockJobsOfWrites, see locks.go), so that the upsert
// waits for no job lock. progress, when not nil, is told how many writes
// are done after each chunk. It returns the ids of the jobs written, in
// no particular order, each with its collection and whether the upsert
// inserted it (a write of a name another transaction created meanwhile
// replaces that job instead).
func (s *Store) upsertJobs(tx *gorm.DB, writes []JobWrite, progress func(done int)) ([]upserted, error) {
	var all []upserted
	err := s.upsertJobsReturning(tx, writes, progress, upsertReturnsIDs, func(chunk *gorm.DB) error {
		var rows []upserted
		if err := chunk.Scan(&rows).Error; err != nil {
			return err
		}
		all = append(all, rows...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// The answers of an upsert statement (upsertJobsReturning): each row's id,
// collection and whether it was inserted; or the whole job as
// jobs_with_results shows it (its results as they were: zero for a job
// the statement inserts) with whether it was inserted.
const (
	upsertReturnsIDs  = `SELECT id, job_collection_id, inserted FROM up`
	upsertReturnsJobs = `SELECT up.*, r.job_id AS result_id,
		coalesce(r.execution_count, 0) AS execution_count, coalesce(r.failure_count, 0) AS failure_count,
		coalesce(r.faulted_count, 0) AS faulted_count, coalesce(r.consecutive_faults, 0) AS consecutive_faults,
		coalesce(r.last_occurrence_faulted, false) AS last_occurrence_faulted,
		r.last_status, r.last_status_at, r.last_failed_at
		FROM up LEFT JOIN job_results r ON r.job_id = up.id`
)

// upsertJobsReturning is upsertJobs with the answer of each chunk's
// statement selected by returning (upsertReturnsIDs or
// upsertReturnsJobs) and read by scan.
func (s *Store) upsertJobsReturning(tx *gorm.DB, writes []JobWrite, progress func(done int), returning string, scan func(chunk *gorm.DB) error) error {
	now := time.Now().UTC()
	var (
		sql   strings.Builder
		args  []any
		inRow = map[jobKey]bool{}
	)
	flush := func(upTo int) error {
		if len(args) == 0 {
			return nil
		}
		// Who and when of a changed state or note are the chunk's last
		// write's (one import: one writer, one clock).
		last := writes[upTo-1]
		// The facets and results rows are written by the same statement
		// (its parts see the jobs through up, not through the table: a
		// statement's parts share one snapshot), in id order.
		err := scan(tx.Raw(`WITH up AS (
			INSERT INTO jobs (job_collection_id, name, definition, secrets, state, ended_at,
				schedule_base, needs_schedule, next_run_at, state_note, state_changed_by, state_changed_at) VALUES `+
			sql.String()+`
			ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
			SET definition = EXCLUDED.definition, secrets = EXCLUDED.secrets, state = EXCLUDED.state,
			    ended_at = CASE WHEN EXCLUDED.state IN ('completed', 'faulted')
			                    THEN coalesce(jobs.ended_at, EXCLUDED.ended_at) END,
			    updated_at = now(), `+jobScheduleSet("EXCLUDED.definition")+`, `+jobStateNoteSet+`
			RETURNING *, xmax = 0 AS inserted
		), facets AS (
			INSERT INTO job_facets (job_id, search, time_zone, calendar_excludes)
			SELECT up.id, f.search, f.time_zone, f.calendar_excludes
			FROM up CROSS JOIN LATERAL job_facets_of(up.name, up.definition, up.state_note) f ORDER BY up.id
			ON CONFLICT (job_id) DO UPDATE
			SET search = excluded.search, time_zone = excluded.time_zone, calendar_excludes = excluded.calendar_excludes
			WHERE (job_facets.search, job_facets.time_zone, job_facets.calendar_excludes)
			      IS DISTINCT FROM (excluded.search, excluded.time_zone, excluded.calendar_excludes)
		), results AS (
			INSERT INTO job_results (job_id) SELECT id FROM up WHERE inserted ORDER BY id
			ON CONFLICT (job_id) DO NOTHING
		) `+returning,
			append(args, last.StateBy, last.nowOr(now))...))
		if err != nil {
			return err
		}
		sql.Reset()
		args = args[:0]
		clear(inRow)
		if progress != nil {
			progress(upTo)
		}
		return nil
	}
	for i, w := range writes {
		sealed, err := s.box.seal(w.Secrets)
		if err != nil {
			return err
		}
		wnow := w.nowOr(now)
		state, ended := w.stateAndEnd(wnow)
		sched := newJobSchedule(state, w.NextRunAt, wnow)
		// One statement may not upsert the same row twice.
		key := w.key()
		if inRow[key] || len(args) >= upsertJobChunk*12 {
			if err := flush(i); err != nil {
				return err
			}
		}
		if len(args) > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		note := w.noteRow(state, wnow)
		args = append(args, w.CollectionID, w.Name, string(w.Definition), sealed, state, ended, sched.Base, sched.NeedsSchedule,
			sched.NextRunAt, note.Note, note.By, note.At)
		inRow[key] = true
	}
	return flush(len(writes))
}
