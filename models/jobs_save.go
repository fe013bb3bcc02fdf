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

// JobWrite is a job to create or replace by SaveJob.
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
	// collection with a QuotaError (checked under the collection's row
	// lock, so concurrent writers cannot overshoot). Zero means no limit.
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
}

// SaveJob creates or replaces a job in one transaction, sealing its
// secrets, and returns the stored job and whether it was created. A
// replaced job keeps its id, counters and history.
func (s *Store) SaveJob(ctx context.Context, w JobWrite) (*Job, bool, error) {
	var out *Job
	var created bool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		out, created, err = s.saveJobTx(tx, w)
		return err
	})
	if err != nil {
		return nil, false, translate("models: save job", err)
	}
	return out, created, nil
}

// saveJobTx is SaveJob inside tx.
func (s *Store) saveJobTx(tx *gorm.DB, w JobWrite) (*Job, bool, error) {
	sealed, err := s.box.seal(w.Secrets)
	if err != nil {
		return nil, false, err
	}
	var lock []int64
	if err := tx.Raw(`SELECT id FROM job_collections WHERE id = ? FOR UPDATE`, w.CollectionID).Scan(&lock).Error; err != nil {
		return nil, false, err
	}
	if len(lock) == 0 {
		return nil, false, ErrNotFound
	}
	var existing []int64
	if err := tx.Raw(`SELECT id FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?)`,
		w.CollectionID, w.Name).Scan(&existing).Error; err != nil {
		return nil, false, err
	}
	if len(existing) == 0 {
		if w.MustExist {
			return nil, false, ErrNotFound
		}
		if w.MaxJobs > 0 {
			var n int64
			if err := tx.Raw(`SELECT count(*) FROM jobs WHERE job_collection_id = ?`, w.CollectionID).Scan(&n).Error; err != nil {
				return nil, false, err
			}
			if n >= int64(w.MaxJobs) {
				return nil, false, &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
					"The collection already holds %d jobs, its quota maxJobCount: delete a job or raise the quota.", n)}
			}
		}
	}
	now := w.now()
	state, ended := w.stateAndEnd(now)
	sched := newJobSchedule(jobdef.State(state), w.NextRunAt, now)
	note := w.noteRow(state, now)
	var j Job
	err = tx.Raw(`
		INSERT INTO jobs (job_collection_id, name, definition, secrets, state, ended_at, schedule_base, needs_schedule,
			next_run_at, state_note, state_changed_by, state_changed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
		SET definition = EXCLUDED.definition, secrets = EXCLUDED.secrets, state = EXCLUDED.state,
		    ended_at = CASE WHEN EXCLUDED.state IN ('completed', 'faulted')
		                    THEN coalesce(jobs.ended_at, EXCLUDED.ended_at) END,
		    updated_at = now(), `+jobScheduleSet("EXCLUDED.definition")+`, `+jobStateNoteSet+`
		RETURNING id`, w.CollectionID, w.Name, string(w.Definition), sealed, state, ended,
		sched.Base, sched.NeedsSchedule, sched.NextRunAt, note.Note, note.By, note.At, w.StateBy, now).Scan(&j.ID).Error
	if err != nil {
		return nil, false, err
	}
	if err := refreshJobFacets(tx, []int64{j.ID}); err != nil {
		return nil, false, err
	}
	if err := ensureJobResults(tx, []int64{j.ID}); err != nil {
		return nil, false, err
	}
	// The job as read back: with its results (a replaced job keeps them).
	if err := tx.Raw(`SELECT * FROM jobs_with_results WHERE id = ?`, j.ID).Scan(&j).Error; err != nil {
		return nil, false, err
	}
	return &j, len(existing) == 0, refreshJobCounts(tx, w.CollectionID)
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

// now returns w.Now, or time.Now when it is zero.
func (w JobWrite) now() time.Time {
	if w.Now.IsZero() {
		return time.Now().UTC()
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
	const chunk = 1000 // rows per statement: 12 parameters each, far below PostgreSQL's 65,535
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
		// Who and when of a changed state or note are the chunk's last
		// write's (one import: one writer, one clock).
		last := writes[upTo-1]
		var ids []int64
		if err := tx.Raw(`INSERT INTO jobs (job_collection_id, name, definition, secrets, state, ended_at,
				schedule_base, needs_schedule, next_run_at, state_note, state_changed_by, state_changed_at) VALUES `+
			sql.String()+`
			ON CONFLICT (job_collection_id, lower(name)) DO UPDATE
			SET definition = EXCLUDED.definition, secrets = EXCLUDED.secrets, state = EXCLUDED.state,
			    ended_at = CASE WHEN EXCLUDED.state IN ('completed', 'faulted')
			                    THEN coalesce(jobs.ended_at, EXCLUDED.ended_at) END,
			    updated_at = now(), `+jobScheduleSet("EXCLUDED.definition")+`, `+jobStateNoteSet+`
			RETURNING id`,
			append(args, last.StateBy, last.now())...).Scan(&ids).Error; err != nil {
			return err
		}
		if err := refreshJobFacets(tx, ids); err != nil {
			return err
		}
		if err := ensureJobResults(tx, ids); err != nil {
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
		sched := newJobSchedule(jobdef.State(state), w.NextRunAt, wnow)
		// One statement may not upsert the same row twice.
		if inRow[key] || len(args) >= chunk*12 {
			if err := flush(i); err != nil {
				return nil, err
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
	if err := flush(len(writes)); err != nil {
		return nil, err
	}
	return created, refreshJobCounts(tx, collIDs...)
}
