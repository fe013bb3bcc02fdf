package models

// Job states set by people (SPEC §4, §13.2): enable, disable with a note,
// for one job or many in one transaction (the bulk actions of the "All
// jobs" page).

import (
	"context"
	"slices"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// JobStateWrite is a change of jobs' state: enable them, or disable them
// with Note (trimmed and checked by the caller: jobdef.CheckStateNote; ""
// for none). By is who makes it (the actor's name), Now the writer's
// clock.
type JobStateWrite struct {
	Enabled bool
	Note    string
	By      string
	Now     time.Time
	// KeepNote leaves a job that is disabled already as it is, note and
	// all, when disabling (the engine's SetJobEnabled).
	KeepNote bool
}

// JobStateOutcome is what SetJobsState did to one job.
type JobStateOutcome string

// The outcomes of SetJobsState.
const (
	// StateChanged: the job was enabled or disabled.
	StateChanged JobStateOutcome = "changed"
	// StateNoteChanged: the job was disabled already; its note changed.
	StateNoteChanged JobStateOutcome = "noteChanged"
	// StateUnchanged: the job was in that state (with that note) already.
	StateUnchanged JobStateOutcome = "unchanged"
	// StateFinished: the job is completed or faulted and was left alone.
	StateFinished JobStateOutcome = "finished"
)

// JobStateResult is the outcome of SetJobsState for job ID, with its
// state before.
type JobStateResult struct {
	ID      int64
	Before  jobdef.State
	Outcome JobStateOutcome
}

// SetJobsState enables or disables the jobs ids in one transaction, as
// SetJobEnabled does for one: enabling a disabled job schedules it from
// w.Now and clears its note; disabling clears its next run (the database
// drops its pending retries) and sets the note. A job whose state or note
// changes gets w.By and w.Now as StateChangedBy and StateChangedAt; a
// completed or faulted job is left alone. It returns one result per id,
// in the order of ids (duplicates once), or ErrNotFound when any id is
// not a job: then nothing is changed.
func (s *Store) SetJobsState(ctx context.Context, ids []int64, w JobStateWrite) ([]JobStateResult, error) {
	ids = uniqueIDs(ids)
	state, note := jobdef.Disabled, w.Note
	if w.Enabled {
		state, note = jobdef.Enabled, ""
	}
	var out []JobStateResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		cur, err := lockJobs(tx, ids)
		if err != nil {
			return err
		}
		var change []int64
		out = make([]JobStateResult, len(ids))
		for i, id := range ids {
			j := cur[id]
			r := JobStateResult{ID: id, Before: j.State, Outcome: StateUnchanged}
			switch {
			case j.State.Final():
				r.Outcome = StateFinished
			case j.State != state:
				r.Outcome = StateChanged
			case !w.KeepNote && j.StateNote != note:
				r.Outcome = StateNoteChanged
			}
			if r.Outcome == StateChanged || r.Outcome == StateNoteChanged {
				change = append(change, id)
			}
			out[i] = r
		}
		if len(change) == 0 {
			return nil
		}
		sched := newJobSchedule(state, nil, w.Now)
		err = tx.Exec(`UPDATE jobs SET state = excluded.state, updated_at = ?::timestamptz,
			state_note = ?, state_changed_by = ?, state_changed_at = ?::timestamptz, `+jobScheduleSet("jobs.definition")+`
			FROM (SELECT ?::text AS state, ?::timestamptz AS schedule_base, ?::timestamptz AS next_run_at) AS excluded
			WHERE jobs.id IN ?`,
			w.Now, note, w.By, w.Now, state, sched.Base, sched.NextRunAt, change).Error
		if err != nil {
			return err
		}
		if err := refreshJobFacets(tx, change); err != nil {
			return err
		}
		return refreshJobCountsOf(tx, change)
	})
	if err != nil {
		return nil, translate("models: set jobs' state", err)
	}
	return out, nil
}

// SetJobState is SetJobsState for one job: it returns ErrNotFound, or
// ErrJobFinished for a completed or faulted job.
func (s *Store) SetJobState(ctx context.Context, id int64, w JobStateWrite) (JobStateOutcome, error) {
	res, err := s.SetJobsState(ctx, []int64{id}, w)
	if err != nil {
		return "", err
	}
	if res[0].Outcome == StateFinished {
		return StateFinished, translate("models: set job state", ErrJobFinished)
	}
	return res[0].Outcome, nil
}

// lockedJob is a job's state as lockJobs reads it.
type lockedJob struct {
	ID              int64
	State           jobdef.State
	StateNote       string
	OccurrenceCount int64
}

// lockJobs locks the rows of the jobs ids in id order (locks.go), and
// returns their states by id, or ErrNotFound
// when any is missing.
func lockJobs(tx *gorm.DB, ids []int64) (map[int64]lockedJob, error) {
	var rows []lockedJob
	if err := tx.Raw(`SELECT id, state, state_note, occurrence_count FROM jobs WHERE id IN ? ORDER BY id FOR UPDATE`, ids).
		Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) != len(ids) {
		return nil, ErrNotFound
	}
	m := make(map[int64]lockedJob, len(rows))
	for _, r := range rows {
		m[r.ID] = r
	}
	return m, nil
}

// uniqueIDs is ids without repeats, in order of first appearance.
func uniqueIDs(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return slices.Clip(out)
}
