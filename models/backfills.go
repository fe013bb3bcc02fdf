package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"sked/models/jobdef"
)

// Backfills (SPEC §16.3, migration 0035): a backfill runs the occurrences
// of a job in a range again, or for the first time, each with its own
// expected time (so its own Idempotency-Key and x-ms-scheduler-expected-
// execution-time), at most MaxConcurrent at once. Its occurrences are
// rows of backfill_runs; a queued run becomes a pending MainAction attempt
// of job_attempts (with backfill_id) when a slot is free, which the
// engine claims like a run now. The slots are refilled (feedBackfill) in
// the transaction that creates the backfill and in the one that records
// the end of one of its attempts (finishAttemptsTx), and by the engine's
// heartbeat (FeedBackfills) for what neither saw, such as a job disabled
// meanwhile (which drops pending attempts). An occurrence is queued or
// started by one backfill at a time (backfill_runs_open_key).

// Backfill is one backfill with its progress.
type Backfill struct {
	ID            int64
	WorkspaceID   string
	JobID         int64
	From          time.Time     `gorm:"column:from_time"`
	To            time.Time     `gorm:"column:to_time"`
	Only          BackfillOnly  `gorm:"column:only_runs"`
	Order         BackfillOrder `gorm:"column:run_order"`
	MaxConcurrent int
	State         BackfillState
	// Total counts the runs it queued, Skipped the occurrences of its
	// range it left out.
	Total, Skipped int
	CreatedBy      string
	CreatedAt      time.Time
	EndedAt        *time.Time
	// Queued, Started, Succeeded, Failed and Cancelled count its runs by
	// state (read with it).
	Queued, Started, Succeeded, Failed, Cancelled int `gorm:"->"`
}

// TableName tells GORM the table.
func (Backfill) TableName() string { return "backfills" }

// Done counts the runs that ended (succeeded, failed or cancelled).
func (b *Backfill) Done() int { return b.Succeeded + b.Failed + b.Cancelled }

// BackfillAction is what a backfill does with one occurrence.
type BackfillAction string

// The backfill actions.
const (
	BackfillRun  BackfillAction = "run"
	BackfillSkip BackfillAction = "skip"
)

// BackfillDecision is what a backfill does with one occurrence of its
// range, and why when it skips it.
type BackfillDecision struct {
	ExpectedTime time.Time
	Action       BackfillAction
	Reason       string
}

// occurrenceStatus is what the store knows of one occurrence of a job.
type occurrenceStatus struct {
	At        time.Time
	Succeeded bool
	Failed    bool
	Open      bool
	QueuedBy  *int64
}

// decideBackfill decides what a backfill with selection only does with
// an occurrence in status st.
func decideBackfill(only BackfillOnly, st occurrenceStatus) BackfillDecision {
	d := BackfillDecision{ExpectedTime: st.At, Action: BackfillSkip}
	switch {
	case st.QueuedBy != nil:
		d.Reason = fmt.Sprintf("already queued by backfill %d", *st.QueuedBy)
	case st.Open:
		d.Reason = "running now (or waiting for a retry)"
	case only == BackfillAll:
		d.Action = BackfillRun
	case st.Succeeded:
		d.Reason = "already succeeded"
	case only == BackfillOnlyFailed && !st.Failed:
		d.Reason = "not failed (it never ran)"
	default:
		d.Action = BackfillRun
	}
	return d
}

// occurrenceStatuses reads, for each of times, whether job's occurrence
// at that time succeeded (a MainAction attempt did), failed, is open or
// is queued by a backfill.
func occurrenceStatuses(tx *gorm.DB, jobID int64, times []time.Time) ([]occurrenceStatus, error) {
	if len(times) == 0 {
		return nil, nil
	}
	var out []occurrenceStatus
	err := tx.Raw(`SELECT t.at,
			EXISTS (SELECT 1 FROM job_history h WHERE h.job_id = ? AND h.expected_execution_time = t.at
			        AND h.action_name = 'MainAction' AND h.status = 'Completed') AS succeeded,
			EXISTS (SELECT 1 FROM job_history h WHERE h.job_id = ? AND h.expected_execution_time = t.at
			        AND h.action_name = 'MainAction' AND h.status = 'Failed') AS failed,
			EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = ? AND a.expected_time = t.at)
			OR EXISTS (SELECT 1 FROM job_history h WHERE h.job_id = ? AND h.expected_execution_time = t.at
			           AND h.status = 'Running') AS open,
			(SELECT r.backfill_id FROM backfill_runs r WHERE r.job_id = ? AND r.expected_time = t.at
			 AND r.state IN ('queued', 'started')) AS queued_by
		FROM unnest(?::timestamptz[]) WITH ORDINALITY AS t(at, i) ORDER BY t.i`,
		jobID, jobID, jobID, jobID, jobID, timeArray(times)).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("occurrence statuses: %w", err)
	}
	return out, nil
}

// timeArray writes times as a PostgreSQL timestamptz[] literal.
func timeArray(times []time.Time) string {
	b := make([]byte, 0, 2+len(times)*33)
	b = append(b, '{')
	for i, t := range times {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, "2006-01-02T15:04:05.999999Z07:00")
		b = append(b, '"')
	}
	return string(append(b, '}'))
}

// PlanBackfill is a dry run: what a backfill of job jobID with selection
// only would do with each of times (the job's occurrences in its range,
// in order). It writes nothing.
func (s *Store) PlanBackfill(ctx context.Context, jobID int64, only BackfillOnly, times []time.Time) ([]BackfillDecision, error) {
	sts, err := occurrenceStatuses(s.db.WithContext(ctx), jobID, truncateTimes(times))
	if err != nil {
		return nil, translate("models: plan backfill", err)
	}
	out := make([]BackfillDecision, len(sts))
	for i, st := range sts {
		out[i] = decideBackfill(only, st)
	}
	return out, nil
}

// truncateTimes returns times kept to the microsecond (the database's
// precision).
func truncateTimes(times []time.Time) []time.Time {
	out := make([]time.Time, len(times))
	for i, t := range times {
		out[i] = t.Truncate(time.Microsecond)
	}
	return out
}

// NewBackfill is a backfill to create: its job, range and settings, who
// asks, when, and the occurrences of its range (in order).
type NewBackfill struct {
	WorkspaceID   string
	JobID         int64
	From, To      time.Time
	Only          BackfillOnly
	Order         BackfillOrder
	MaxConcurrent int
	CreatedBy     string
	Now           time.Time
	Times         []time.Time
}

// CreateBackfill creates backfill nb in one transaction: it locks the job
// (which must be enabled: ErrJobFinished, ErrJobNotEnabled, ErrNotFound),
// decides for each occurrence as PlanBackfill does, queues the runs and
// starts the first MaxConcurrent of them (pending attempts due at nb.Now;
// the engines are notified). It returns the backfill and the decisions.
// A backfill with nothing to run is created done.
func (s *Store) CreateBackfill(ctx context.Context, nb NewBackfill) (*Backfill, []BackfillDecision, error) {
	nb.Now = nb.Now.Truncate(time.Microsecond)
	times := truncateTimes(nb.Times)
	var b Backfill
	var decisions []BackfillDecision
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var states []string
		if err := tx.Raw(`SELECT state FROM jobs WHERE id = ? FOR UPDATE`, nb.JobID).Scan(&states).Error; err != nil {
			return err
		}
		if len(states) == 0 {
			return ErrNotFound
		}
		if err := rerunnableJob(jobdef.State(states[0])); err != nil {
			return err
		}
		sts, err := occurrenceStatuses(tx, nb.JobID, times)
		if err != nil {
			return err
		}
		decisions = make([]BackfillDecision, len(sts))
		var runs []time.Time
		for i, st := range sts {
			decisions[i] = decideBackfill(nb.Only, st)
			if decisions[i].Action == BackfillRun {
				runs = append(runs, st.At)
			}
		}
		state := BackfillRunning
		var ended *time.Time
		if len(runs) == 0 {
			state, ended = BackfillDone, &nb.Now
		}
		b = Backfill{WorkspaceID: nb.WorkspaceID, JobID: nb.JobID, From: nb.From, To: nb.To, Only: nb.Only, Order: nb.Order,
			MaxConcurrent: nb.MaxConcurrent, State: state, Total: len(runs), Skipped: len(sts) - len(runs),
			CreatedBy: nb.CreatedBy, CreatedAt: nb.Now, EndedAt: ended}
		if err := tx.Create(&b).Error; err != nil {
			return err
		}
		if len(runs) == 0 {
			return nil
		}
		if err := tx.Exec(`INSERT INTO backfill_runs (backfill_id, job_id, expected_time, state)
			SELECT ?, ?, t, 'queued' FROM unnest(?::timestamptz[]) AS t`, b.ID, nb.JobID, timeArray(runs)).Error; err != nil {
			return err
		}
		return feedBackfill(tx, b.ID, nb.Now)
	})
	if err != nil {
		return nil, nil, translate("models: create backfill", err)
	}
	got, err := s.Backfill(ctx, nb.JobID, b.ID)
	if err != nil {
		return nil, nil, err
	}
	return got, decisions, nil
}

// feedBackfill refills the slots of backfill id at now, in tx, which
// holds (or may take) the lock of its job's row: it locks the backfill,
// ends its started runs whose occurrence has no open attempt of it left
// (succeeded when a MainAction attempt of the backfill succeeded, failed
// when one ran, queued again when none did), and, while it is running, starts queued runs (oldest or
// newest first) until MaxConcurrent are started, each as a pending
// MainAction attempt due at now, numbered after the occurrence's last
// attempt, with the occurrence's ordinal from its history or the job's
// next one. A running backfill left with nothing queued or started is
// done. It notifies the engines when it started a run.
func feedBackfill(tx *gorm.DB, id int64, now time.Time) error {
	var b Backfill
	if err := tx.Raw(`SELECT id, job_id, max_concurrent, run_order, state FROM backfills WHERE id = ? FOR UPDATE`, id).
		Scan(&b).Error; err != nil {
		return fmt.Errorf("feed backfill %d: %w", id, err)
	}
	if b.ID == 0 || b.State == BackfillDone {
		return nil
	}
	// A started run whose attempt is gone without a history entry never
	// ran (its attempt could not be stored): it is queued again, or
	// cancelled with its backfill.
	never := "queued"
	if b.State == BackfillCancelled {
		never = "cancelled"
	}
	if err := tx.Exec(`UPDATE backfill_runs r SET state = CASE
			WHEN EXISTS (SELECT 1 FROM job_history h WHERE h.job_id = r.job_id AND h.expected_execution_time = r.expected_time
				AND h.backfill_id = r.backfill_id AND h.action_name = 'MainAction' AND h.status = 'Completed') THEN 'succeeded'
			WHEN EXISTS (SELECT 1 FROM job_history h WHERE h.job_id = r.job_id AND h.expected_execution_time = r.expected_time
				AND h.backfill_id = r.backfill_id) THEN 'failed'
			ELSE ? END
		WHERE r.backfill_id = ? AND r.state = 'started' AND NOT EXISTS (
			SELECT 1 FROM job_attempts a WHERE a.job_id = r.job_id AND a.expected_time = r.expected_time
			AND a.backfill_id = r.backfill_id)`, never, id).Error; err != nil {
		return fmt.Errorf("feed backfill %d: end runs: %w", id, err)
	}
	var n struct{ Queued, Started int }
	if err := tx.Raw(`SELECT count(*) FILTER (WHERE state = 'queued') AS queued, count(*) FILTER (WHERE state = 'started') AS started
		FROM backfill_runs WHERE backfill_id = ? AND state IN ('queued', 'started')`, id).Scan(&n).Error; err != nil {
		return fmt.Errorf("feed backfill %d: %w", id, err)
	}
	if b.State != BackfillRunning {
		return nil
	}
	if n.Queued == 0 && n.Started == 0 {
		return tx.Exec(`UPDATE backfills SET state = 'done', ended_at = ? WHERE id = ?`, now, id).Error
	}
	free := b.MaxConcurrent - n.Started
	if free <= 0 || n.Queued == 0 {
		return nil
	}
	dir := "ASC"
	if b.Order == BackfillNewestFirst {
		dir = "DESC"
	}
	var picked []struct {
		ExpectedTime time.Time
		Ordinal      *int64
	}
	if err := tx.Raw(`UPDATE backfill_runs r SET state = 'started'
		FROM (SELECT expected_time FROM backfill_runs WHERE backfill_id = ? AND state = 'queued'
		      ORDER BY expected_time `+dir+` LIMIT ?) p
		WHERE r.backfill_id = ? AND r.expected_time = p.expected_time
		RETURNING r.expected_time, (SELECT max(h.repeat_count) FROM job_history h
			WHERE h.job_id = r.job_id AND h.expected_execution_time = r.expected_time) AS ordinal`,
		id, free, id).Scan(&picked).Error; err != nil {
		return fmt.Errorf("feed backfill %d: start runs: %w", id, err)
	}
	slices.SortFunc(picked, func(a, b struct {
		ExpectedTime time.Time
		Ordinal      *int64
	}) int {
		return a.ExpectedTime.Compare(b.ExpectedTime)
	})
	fresh := int64(0)
	for _, p := range picked {
		if p.Ordinal == nil {
			fresh++
		}
	}
	var base int64
	if err := tx.Raw(`UPDATE jobs SET occurrence_count = occurrence_count + ? WHERE id = ? RETURNING occurrence_count - ?`,
		fresh, b.JobID, fresh).Scan(&base).Error; err != nil {
		return fmt.Errorf("feed backfill %d: number occurrences: %w", id, err)
	}
	for _, p := range picked {
		ord := base + 1
		if p.Ordinal != nil {
			ord = *p.Ordinal
		} else {
			base++
		}
		if err := tx.Exec(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				attempt_base, backfill_id)
			SELECT o.job, o.at, 'MainAction', n.next, ?, 'pending', ?, n.next, ?
			FROM (SELECT ?::bigint AS job, ?::timestamptz AS at) o
			CROSS JOIN LATERAL (SELECT coalesce(`+lastAttemptOf("o.job", "o.at", "'MainAction'")+`, 0) + 1 AS next) n
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING`,
			ord, now, id, b.JobID, p.ExpectedTime).Error; err != nil {
			return fmt.Errorf("feed backfill %d: queue attempt: %w", id, err)
		}
	}
	return tx.Exec(`SELECT pg_notify(?, ?)`, NotifyChannel, DuePayload(now)).Error
}

// feedBackfillsOf refills the backfills ids (in id order), in the
// transaction of the attempts of theirs that just finished.
func feedBackfillsOf(tx *gorm.DB, ids []int64, now time.Time) error {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		if err := feedBackfill(tx, id, now); err != nil {
			return err
		}
	}
	return nil
}

// FeedBackfills refills, at now, every running or cancelled backfill
// that no other transaction holds (SKIP LOCKED), each in its own
// transaction with its job's row locked first (the lock order): the
// engine's heartbeat calls it for what the writes that feed them did not
// see (a job disabled and enabled again, a crash). It returns how many it
// looked at.
func (s *Store) FeedBackfills(ctx context.Context, now time.Time) (int, error) {
	var ids []struct{ ID, JobID int64 }
	if err := s.db.WithContext(ctx).Raw(`SELECT id, job_id FROM backfills WHERE state = 'running'
		UNION
		SELECT id, job_id FROM backfills WHERE state = 'cancelled'
			AND id IN (SELECT backfill_id FROM backfill_runs WHERE state = 'started')
		ORDER BY id LIMIT 100`).Scan(&ids).Error; err != nil {
		return 0, translate("models: feed backfills", err)
	}
	for _, b := range ids {
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			var locked []int64
			if err := tx.Raw(`SELECT id FROM jobs WHERE id = ? FOR UPDATE SKIP LOCKED`, b.JobID).Scan(&locked).Error; err != nil {
				return err
			}
			if len(locked) == 0 {
				return nil
			}
			return feedBackfill(tx, b.ID, now)
		})
		if err != nil {
			return 0, translate("models: feed backfills", err)
		}
	}
	return len(ids), nil
}

// CancelBackfill cancels backfill id of job jobID at now: its queued runs
// are cancelled, and so are its started runs whose first attempt has not
// started yet (the pending attempt is dropped); runs already running
// finish, with their retries. Cancelling a backfill that ended changes
// nothing. It returns the backfill, or ErrNotFound.
func (s *Store) CancelBackfill(ctx context.Context, jobID, id int64, now time.Time) (*Backfill, error) {
	now = now.Truncate(time.Microsecond)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var found []int64
		if err := tx.Raw(`SELECT id FROM jobs WHERE id = ? FOR UPDATE`, jobID).Scan(&found).Error; err != nil {
			return err
		}
		var st []string
		if err := tx.Raw(`SELECT state FROM backfills WHERE id = ? AND job_id = ? FOR UPDATE`, id, jobID).Scan(&st).Error; err != nil {
			return err
		}
		if len(found) == 0 || len(st) == 0 {
			return ErrNotFound
		}
		if BackfillState(st[0]) != BackfillRunning {
			return nil
		}
		if err := tx.Exec(`WITH d AS (
				DELETE FROM job_attempts a WHERE a.backfill_id = ? AND a.job_id = ? AND a.status = 'pending'
				AND a.action = 'MainAction' AND a.attempt = a.attempt_base
				RETURNING a.expected_time)
			UPDATE backfill_runs r SET state = 'cancelled'
			WHERE r.backfill_id = ? AND (r.state = 'queued' OR (r.state = 'started' AND r.expected_time IN (SELECT expected_time FROM d)))`,
			id, jobID, id).Error; err != nil {
			return err
		}
		return tx.Exec(`UPDATE backfills SET state = 'cancelled', ended_at = ? WHERE id = ?`, now, id).Error
	})
	if err != nil {
		return nil, translate("models: cancel backfill", err)
	}
	return s.Backfill(ctx, jobID, id)
}

// backfillsFrom reads the backfills of the query from (an SQL FROM
// item named b) with their runs counted by state.
func backfillsFrom(from string) string {
	return `SELECT b.*, c.* FROM ` + from + ` CROSS JOIN LATERAL (SELECT
			count(*) FILTER (WHERE r.state = 'queued') AS queued,
			count(*) FILTER (WHERE r.state = 'started') AS started,
			count(*) FILTER (WHERE r.state = 'succeeded') AS succeeded,
			count(*) FILTER (WHERE r.state = 'failed') AS failed,
			count(*) FILTER (WHERE r.state = 'cancelled') AS cancelled
		FROM backfill_runs r WHERE r.backfill_id = b.id) c`
}

// Backfill returns backfill id of job jobID with its progress, or
// ErrNotFound.
func (s *Store) Backfill(ctx context.Context, jobID, id int64) (*Backfill, error) {
	var out []Backfill
	if err := s.db.WithContext(ctx).Raw(backfillsFrom(`backfills b`)+` WHERE b.id = ? AND b.job_id = ?`, id, jobID).
		Scan(&out).Error; err != nil {
		return nil, translate("models: backfill", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("models: backfill %d: %w", id, ErrNotFound)
	}
	return &out[0], nil
}

// Backfills returns the newest limit backfills of job jobID, newest first,
// with their progress.
func (s *Store) Backfills(ctx context.Context, jobID int64, limit int) ([]Backfill, error) {
	var out []Backfill
	if err := s.db.WithContext(ctx).Raw(backfillsFrom(`(SELECT * FROM backfills WHERE job_id = ? ORDER BY id DESC LIMIT ?) b`)+
		` ORDER BY b.id DESC`, jobID, limit).Scan(&out).Error; err != nil {
		return nil, translate("models: backfills", err)
	}
	return out, nil
}
