package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"gorm.io/gorm"
	"sked/models/jobdef"
)

// The engine's queries (SPEC §4). The engine (package scheduler) decides;
// these methods only read and write, each in one short transaction. The
// recurrence maths stays out of this package: ClaimDue asks the caller for
// a JobPlan for every job it has locked.

// Action names, as in the history and the job_attempts table.
const (
	MainAction  = "MainAction"
	ErrorAction = "ErrorAction"
)

// History statuses.
const (
	StatusCompleted = "Completed"
	StatusFailed    = "Failed"
	StatusPostponed = "Postponed"
)

// NotifyChannel is the LISTEN/NOTIFY channel on which the database tells
// the engines that there is something to look at: a job was created,
// changed, enabled or run now, or a collection was enabled (empty payload:
// look again now); or that an attempt was stored due at a given time (a
// retry, an error action, the recovery of a dead instance's attempts: the
// payload is that time, see DuePayload), for which the engines arm a timer.
const NotifyChannel = "sked_engine"

// ErrJobNotEnabled means that the operation needs an enabled job.
var ErrJobNotEnabled = errors.New("job is not enabled")

// ErrJobFinished means that the job is completed or faulted: final states
// that only allow deletion.
var ErrJobFinished = errors.New("job is completed or faulted")

// EngineJob is a job locked by ClaimDue for planning: either its schedule
// must be computed (NeedsSchedule) or its next occurrence is due.
type EngineJob struct {
	ID              int64
	JobCollectionID int64
	Definition      json.RawMessage
	// SealedSecrets are the job's sealed secrets; Secrets them opened.
	SealedSecrets   []byte         `gorm:"column:secrets"`
	Secrets         jobdef.Secrets `gorm:"-"`
	NextRunAt       *time.Time
	ScheduleBase    *time.Time
	NeedsSchedule   bool
	ScheduledCount  int64
	OccurrenceCount int64
	// OpenAttempts counts the job's pending and running attempts: non-zero
	// means an earlier occurrence is still running (or waiting for a retry).
	OpenAttempts int64
}

// JobPlan is what the engine decided for one EngineJob.
type JobPlan struct {
	// NextRunAt is the job's next occurrence, nil when it has none left.
	NextRunAt *time.Time
	// ScheduledCount is the new number of occurrences taken from the
	// schedule (what recurrence.count limits).
	ScheduledCount int64
	// Run, when not nil, is an occurrence to start now.
	Run *PlannedRun
	// Postponed are history entries to write (missed or overlapping
	// occurrences); their JobID is filled in by the store.
	Postponed []HistoryEntry
	// ScheduleBase, when not nil, replaces the job's schedule base.
	ScheduleBase *time.Time
}

// PlannedRun is an occurrence to start at once: its first MainAction
// attempt is inserted as running, leased to the claiming engine.
type PlannedRun struct {
	// ExpectedTime is the occurrence's scheduled instant.
	ExpectedTime time.Time
	// Lease is how long the claiming engine may hold the attempt before
	// another engine considers it interrupted.
	Lease time.Duration
}

// ClaimRequest tells ClaimDue what to claim.
type ClaimRequest struct {
	// Now is the engine's clock; everything due at or before it is due.
	Now time.Time
	// Owner identifies the claiming engine; it holds the leases.
	Owner string
	// Limit caps the attempts started by one claim (the free workers).
	// Zero claims none but still schedules jobs and reports expired
	// leases.
	Limit int
	// Plan is called, inside the transaction and with the job's row
	// locked, for every job to schedule or due. It must not block. A nil
	// plan (for a definition the engine cannot read) clears the job's
	// schedule.
	Plan func(*EngineJob) *JobPlan
	// Lease returns how long a pending attempt of action (MainAction or
	// ErrorAction) of job jobID with definition def may be held.
	Lease func(jobID int64, def json.RawMessage, secrets jobdef.Secrets, action string) time.Duration
}

// ClaimedAttempt is an attempt returned by ClaimDue: one to execute now
// (leased to the claimer), or, with Expired, one whose lease ran out and
// that must be finished as interrupted.
type ClaimedAttempt struct {
	ID         int64
	JobID      int64
	Definition json.RawMessage
	// SealedSecrets are the job's sealed secrets; Secrets them opened.
	SealedSecrets  []byte         `gorm:"column:secrets"`
	Secrets        jobdef.Secrets `gorm:"-"`
	ExpectedTime   time.Time
	Action         string
	Attempt        int
	Occurrence     int64
	DueAt          time.Time
	StartedAt      time.Time
	LeaseExpiresAt time.Time
	Expired        bool
}

// claimBatch caps the jobs scheduled and the expired leases reported by one
// claim, so that transactions stay short.
const claimBatch = 500

// ClaimDue, in one transaction: computes the schedule of jobs that need
// one (created, changed or re-enabled); starts the due occurrences of
// enabled jobs in enabled collections (at most req.Limit attempts, due
// pending attempts first, then due jobs), each as a running attempt leased
// to req.Owner; and reports attempts whose lease expired. Rows locked by
// another engine are skipped (FOR UPDATE SKIP LOCKED), and the unique key
// of job_attempts makes a second start of one attempt impossible.
func (s *Store) ClaimDue(ctx context.Context, req ClaimRequest) ([]ClaimedAttempt, error) {
	var out []ClaimedAttempt
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		out = out[:0]
		// 1. Jobs whose schedule must be computed, whatever their
		// collection's state: computing is not running.
		var pending []EngineJob
		if err := tx.Raw(engineJobSelect+`
			WHERE j.needs_schedule AND j.state = 'enabled'
			ORDER BY j.id LIMIT ? FOR UPDATE OF j SKIP LOCKED`, claimBatch).Scan(&pending).Error; err != nil {
			return fmt.Errorf("select jobs to schedule: %w", err)
		}
		for i := range pending {
			pending[i].NeedsSchedule = true
			pending[i].Secrets = s.openSecrets(pending[i].ID, pending[i].SealedSecrets)
			plan := req.Plan(&pending[i])
			if plan != nil && plan.Run != nil {
				// Scheduling never starts a run itself: a due first
				// occurrence is picked up below, with the limit applied.
				if plan.NextRunAt == nil || plan.Run.ExpectedTime.Before(*plan.NextRunAt) {
					t := plan.Run.ExpectedTime
					plan.NextRunAt = &t
				}
				plan.Run = nil
			}
			if _, err := applyPlan(tx, req, &pending[i], plan); err != nil {
				return err
			}
		}
		limit := req.Limit
		// 2. Pending attempts (retries, error actions, run now) that are due.
		if limit > 0 {
			var due []ClaimedAttempt
			err := tx.Raw(`
				SELECT a.id, a.job_id, j.definition, j.secrets, a.expected_time, a.action, a.attempt, a.occurrence, a.due_at
				FROM job_attempts a
				JOIN jobs j ON j.id = a.job_id
				JOIN job_collections c ON c.id = j.job_collection_id
				WHERE a.status = 'pending' AND a.due_at <= ? AND j.state = 'enabled' AND c.state = 'Enabled'
				ORDER BY a.due_at LIMIT ? FOR UPDATE OF a SKIP LOCKED`, req.Now, limit).Scan(&due).Error
			if err != nil {
				return fmt.Errorf("select pending attempts: %w", err)
			}
			type lease struct {
				ID    int64     `json:"id"`
				JobID int64     `json:"job_id"`
				Until time.Time `json:"until"`
			}
			leases := make([]lease, len(due))
			for i := range due {
				a := &due[i]
				a.StartedAt = req.Now
				a.Secrets = s.openSecrets(a.JobID, a.SealedSecrets)
				a.LeaseExpiresAt = req.Now.Add(req.Lease(a.JobID, a.Definition, a.Secrets, a.Action))
				leases[i] = lease{ID: a.ID, JobID: a.JobID, Until: a.LeaseExpiresAt}
				out = append(out, *a)
			}
			if len(leases) > 0 {
				data, err := json.Marshal(leases)
				if err != nil {
					return fmt.Errorf("start attempts: %w", err)
				}
				err = tx.Exec(`
					WITH l AS (SELECT * FROM json_to_recordset(?::json) AS l(id bigint, job_id bigint, until timestamptz)),
					a AS (UPDATE job_attempts t SET status = 'running', lease_owner = ?, lease_expires_at = l.until,
					             started_at = ?::timestamptz
					      FROM l WHERE t.id = l.id)
					UPDATE jobs SET last_run_at = ?::timestamptz WHERE id IN (SELECT job_id FROM l)`,
					string(data), req.Owner, req.Now, req.Now).Error
				if err != nil {
					return fmt.Errorf("start attempts: %w", err)
				}
			}
			limit -= len(due)
		}
		// 3. Jobs whose next occurrence is due.
		if limit > 0 {
			var due []EngineJob
			if err := tx.Raw(engineJobSelect+`
				JOIN job_collections c ON c.id = j.job_collection_id
				WHERE j.state = 'enabled' AND j.next_run_at IS NOT NULL AND j.next_run_at <= ? AND c.state = 'Enabled'
				ORDER BY j.next_run_at LIMIT ? FOR UPDATE OF j SKIP LOCKED`, req.Now, limit).Scan(&due).Error; err != nil {
				return fmt.Errorf("select due jobs: %w", err)
			}
			// The common case (start one occurrence, move on to the next)
			// is written for all jobs at once; the rest one by one.
			var bulk []bulkPlan
			byID := map[int64]*EngineJob{}
			for i := range due {
				j := &due[i]
				j.Secrets = s.openSecrets(j.ID, j.SealedSecrets)
				plan := req.Plan(j)
				if plan == nil || len(plan.Postponed) > 0 || plan.Run == nil {
					started, err := applyPlan(tx, req, j, plan)
					if err != nil {
						return err
					}
					if started != nil {
						out = append(out, *started)
					}
					continue
				}
				byID[j.ID] = j
				bulk = append(bulk, bulkPlan{ID: j.ID, Next: plan.NextRunAt, Sched: plan.ScheduledCount, Occ: j.OccurrenceCount,
					RunAt: plan.Run.ExpectedTime, Lease: req.Now.Add(plan.Run.Lease)})
			}
			started, err := applyBulk(tx, req, bulk, byID)
			if err != nil {
				return err
			}
			out = append(out, started...)
		}
		// 4. Attempts whose engine lost them (crash, lost connection).
		var expired []ClaimedAttempt
		if err := tx.Raw(`
			SELECT a.id, a.job_id, j.definition, j.secrets, a.expected_time, a.action, a.attempt, a.occurrence, a.due_at,
			       a.started_at, a.lease_expires_at
			FROM job_attempts a JOIN jobs j ON j.id = a.job_id
			WHERE a.status = 'running' AND a.lease_expires_at < ?
			ORDER BY a.lease_expires_at LIMIT ? FOR UPDATE OF a SKIP LOCKED`, req.Now, claimBatch).Scan(&expired).Error; err != nil {
			return fmt.Errorf("select expired leases: %w", err)
		}
		for i := range expired {
			expired[i].Expired = true
			expired[i].Secrets = s.openSecrets(expired[i].JobID, expired[i].SealedSecrets)
			out = append(out, expired[i])
		}
		return nil
	})
	if err != nil {
		return nil, translate("models: claim due work", err)
	}
	return out, nil
}

// engineJobSelect is the head of the queries that lock jobs for planning.
const engineJobSelect = `
	SELECT j.id, j.job_collection_id, j.definition, j.secrets, j.next_run_at, j.schedule_base, j.needs_schedule,
	       j.scheduled_count, j.occurrence_count,
	       (SELECT count(*) FROM job_attempts o WHERE o.job_id = j.id AND o.status IN ('pending', 'running')) AS open_attempts
	FROM jobs j`

// applyPlan writes plan for the locked job j: its postponed history, its
// started occurrence (returned), its next run or its end.
func applyPlan(tx *gorm.DB, req ClaimRequest, j *EngineJob, plan *JobPlan) (*ClaimedAttempt, error) {
	if plan == nil {
		err := tx.Exec(`UPDATE jobs SET next_run_at = NULL, needs_schedule = false WHERE id = ?`, j.ID).Error
		if err != nil {
			return nil, fmt.Errorf("clear schedule of job %d: %w", j.ID, err)
		}
		return nil, nil
	}
	for i := range plan.Postponed {
		e := plan.Postponed[i]
		e.JobID = j.ID
		if err := tx.Create(&e).Error; err != nil {
			return nil, fmt.Errorf("postpone occurrence of job %d: %w", j.ID, err)
		}
	}
	occurrences := j.OccurrenceCount
	var started *ClaimedAttempt
	if plan.Run != nil {
		a := ClaimedAttempt{
			JobID: j.ID, Definition: j.Definition, Secrets: j.Secrets, ExpectedTime: plan.Run.ExpectedTime, Action: MainAction,
			Attempt: 1, Occurrence: occurrences + 1, DueAt: plan.Run.ExpectedTime, StartedAt: req.Now,
			LeaseExpiresAt: req.Now.Add(plan.Run.Lease),
		}
		var ids []int64
		err := tx.Raw(`INSERT INTO job_attempts
			(job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner, lease_expires_at, started_at)
			VALUES (?, ?, 'MainAction', 1, ?, 'running', ?, ?, ?, ?)
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING RETURNING id`,
			a.JobID, a.ExpectedTime, a.Occurrence, a.DueAt, req.Owner, a.LeaseExpiresAt, a.StartedAt).Scan(&ids).Error
		if err != nil {
			return nil, fmt.Errorf("start occurrence of job %d: %w", j.ID, err)
		}
		if len(ids) == 1 {
			a.ID = ids[0]
			started = &a
			occurrences++
		}
	}
	finished := plan.NextRunAt == nil && started == nil && j.OpenAttempts == 0
	var lastRun any
	if started != nil {
		lastRun = req.Now
	}
	// The state is only named when it changes: the jobs_schedule trigger
	// treats a write of the state as a user's write.
	err := tx.Exec(`UPDATE jobs SET next_run_at = ?, needs_schedule = false, scheduled_count = ?, occurrence_count = ?,
			last_run_at = coalesce(?, last_run_at), schedule_base = coalesce(?, schedule_base)
		WHERE id = ?`,
		plan.NextRunAt, plan.ScheduledCount, occurrences, lastRun, plan.ScheduleBase, j.ID).Error
	if err != nil {
		return nil, fmt.Errorf("advance job %d: %w", j.ID, err)
	}
	if finished {
		err := tx.Exec(`UPDATE jobs SET state = CASE WHEN last_occurrence_faulted THEN 'faulted' ELSE 'completed' END,
			ended_at = ? WHERE id = ?`, req.Now, j.ID).Error
		if err != nil {
			return nil, fmt.Errorf("end job %d: %w", j.ID, err)
		}
	}
	return started, nil
}

// bulkPlan is one job's plan in applyBulk: start the occurrence RunAt and
// move on to Next.
type bulkPlan struct {
	ID    int64      `json:"id"`
	Next  *time.Time `json:"next"`
	Sched int64      `json:"sched"`
	Occ   int64      `json:"occ"`
	RunAt time.Time  `json:"run_at"`
	Lease time.Time  `json:"lease"`
}

// applyBulk writes plans that each start one occurrence, in one statement:
// the attempts are inserted (a conflict means that occurrence already ran:
// it is not started again) and the jobs advanced.
func applyBulk(tx *gorm.DB, req ClaimRequest, plans []bulkPlan, jobs map[int64]*EngineJob) ([]ClaimedAttempt, error) {
	if len(plans) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(plans)
	if err != nil {
		return nil, fmt.Errorf("start occurrences: %w", err)
	}
	var rows []struct {
		JobID     int64
		AttemptID *int64
	}
	err = tx.Raw(`
		WITH p AS (
			SELECT * FROM json_to_recordset(?::json)
				AS p(id bigint, next timestamptz, sched bigint, occ bigint, run_at timestamptz, lease timestamptz)
		), ins AS (
			INSERT INTO job_attempts
				(job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner, lease_expires_at, started_at)
			SELECT id, run_at, 'MainAction', 1, occ + 1, 'running', run_at, ?, lease, ?::timestamptz FROM p
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING
			RETURNING id, job_id
		)
		UPDATE jobs j SET next_run_at = p.next, needs_schedule = false, scheduled_count = p.sched,
			occurrence_count = p.occ + (CASE WHEN ins.id IS NULL THEN 0 ELSE 1 END),
			last_run_at = CASE WHEN ins.id IS NULL THEN j.last_run_at ELSE ?::timestamptz END
		FROM p LEFT JOIN ins ON ins.job_id = p.id
		WHERE j.id = p.id
		RETURNING j.id AS job_id, ins.id AS attempt_id`, string(data), req.Owner, req.Now, req.Now).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("start occurrences: %w", err)
	}
	byJob := make(map[int64]*bulkPlan, len(plans))
	for i := range plans {
		byJob[plans[i].ID] = &plans[i]
	}
	var out []ClaimedAttempt
	for _, r := range rows {
		if r.AttemptID == nil {
			continue
		}
		p, j := byJob[r.JobID], jobs[r.JobID]
		out = append(out, ClaimedAttempt{ID: *r.AttemptID, JobID: r.JobID, Definition: j.Definition, Secrets: j.Secrets,
			ExpectedTime: p.RunAt, Action: MainAction, Attempt: 1, Occurrence: p.Occ + 1, DueAt: p.RunAt,
			StartedAt: req.Now, LeaseExpiresAt: p.Lease})
	}
	return out, nil
}

// NextAttempt is the attempt that follows a failed one within the same
// occurrence: a retry of the same action or the first error action attempt.
type NextAttempt struct {
	Action  string
	Attempt int
	DueAt   time.Time
}

// AttemptOutcome is the result of one attempt, for FinishAttempts.
type AttemptOutcome struct {
	// AttemptID is the finished attempt.
	AttemptID int64
	// Owner must still hold the attempt's lease. With Expired, the lease
	// must instead have run out before Now (an interrupted attempt).
	Owner   string
	Expired bool
	// Now is the attempt's end time.
	Now time.Time
	// Succeeded tells Completed from Failed; Message is the history message.
	Succeeded bool
	Message   string
	// Faulted says the main action failed its last attempt (faultedCount).
	Faulted bool
	// Next is the following attempt of the occurrence, nil when the
	// occurrence ends with this attempt. It is dropped when the job is no
	// longer enabled.
	Next *NextAttempt
	// OccurrenceFaulted says, when the occurrence ends here, that its main
	// action faulted.
	OccurrenceFaulted bool
}

// FinishedAttempt reports what FinishAttempts did with one outcome.
type FinishedAttempt struct {
	AttemptID int64
	// Recorded is false when the attempt was no longer the owner's (its
	// lease expired and another engine finished it) or the job was deleted:
	// nothing was written.
	Recorded bool
	// Action, Attempt and DueAt describe the attempt.
	JobID   int64
	Action  string
	Attempt int
	DueAt   time.Time
	// StartedAt is when it started.
	StartedAt time.Time
	// NextStored says Next was stored; JobEnded that the job became
	// completed or faulted.
	NextStored bool
	JobEnded   bool
}

// FinishAttempts records outcomes in one transaction: per attempt, its
// final status, one history entry, the job's counters, the next attempt of
// the occurrence when there is one and the job is still enabled, and the
// job's final state when it has no occurrence left and nothing open. The
// common part is one statement for the whole batch. When it stores next
// attempts it notifies the engines with the earliest one's due time
// (DuePayload).
func (s *Store) FinishAttempts(ctx context.Context, outcomes []AttemptOutcome) ([]FinishedAttempt, error) {
	out := make([]FinishedAttempt, len(outcomes))
	if len(outcomes) == 0 {
		return out, nil
	}
	type wire struct {
		ID         int64     `json:"id"`
		Owner      string    `json:"owner"`
		Expired    bool      `json:"expired"`
		Fin        time.Time `json:"fin"`
		OK         bool      `json:"ok"`
		Msg        string    `json:"msg"`
		Faulted    bool      `json:"faulted"`
		Ended      bool      `json:"ended"`
		OccFaulted bool      `json:"occ_faulted"`
	}
	ws := make([]wire, len(outcomes))
	for i, o := range outcomes {
		ws[i] = wire{ID: o.AttemptID, Owner: o.Owner, Expired: o.Expired, Fin: o.Now, OK: o.Succeeded,
			Msg: cleanText(o.Message), Faulted: o.Faulted, Ended: o.Next == nil, OccFaulted: o.OccurrenceFaulted || o.Faulted}
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return nil, fmt.Errorf("models: finish attempts: %w", err)
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var rows []finishedRow
		err := tx.Raw(`
			WITH o AS (
				SELECT * FROM json_to_recordset(?::json) AS o(id bigint, owner text, expired boolean, fin timestamptz,
					ok boolean, msg text, faulted boolean, ended boolean, occ_faulted boolean)
			), a AS (
				UPDATE job_attempts t SET status = CASE WHEN o.ok THEN 'succeeded' ELSE 'failed' END, finished_at = o.fin,
					lease_owner = NULL, lease_expires_at = NULL
				FROM o
				WHERE t.id = o.id AND t.status = 'running'
				  AND ((NOT o.expired AND t.lease_owner = o.owner) OR (o.expired AND t.lease_expires_at < o.fin))
				RETURNING t.id, t.job_id, t.action, t.attempt, t.due_at, t.started_at, t.expected_time, t.occurrence,
					o.ok, o.msg, o.fin, o.faulted, o.ended, o.occ_faulted
			), h AS (
				INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status,
				                         message, retry_count, repeat_count, lateness_ms, attempt_id)
				SELECT job_id, started_at, greatest(fin, started_at), expected_time, action,
				       CASE WHEN ok THEN 'Completed' ELSE 'Failed' END, msg, attempt - 1, occurrence,
				       greatest(0, (extract(epoch FROM started_at - due_at) * 1000)::bigint), id
				FROM a
			), g AS (
				SELECT job_id, count(*) AS n, count(*) FILTER (WHERE NOT ok) AS failed,
				       count(*) FILTER (WHERE faulted) AS faulted,
				       (array_agg(occ_faulted ORDER BY id DESC) FILTER (WHERE ended))[1] AS last_faulted
				FROM a GROUP BY job_id
			), u AS (
				UPDATE jobs j SET execution_count = j.execution_count + g.n, failure_count = j.failure_count + g.failed,
					faulted_count = j.faulted_count + g.faulted,
					last_occurrence_faulted = coalesce(g.last_faulted, j.last_occurrence_faulted)
				FROM g WHERE j.id = g.job_id
				RETURNING j.id, j.state, j.next_run_at, j.needs_schedule
			)
			SELECT a.id, a.job_id, a.action, a.attempt, a.due_at, a.started_at, a.expected_time, a.occurrence,
			       u.state, u.next_run_at, u.needs_schedule
			FROM a JOIN u ON u.id = a.job_id`, string(data)).Scan(&rows).Error
		if err != nil {
			return fmt.Errorf("finish attempts: %w", err)
		}
		byID := make(map[int64]*finishedRow, len(rows))
		for i := range rows {
			byID[rows[i].ID] = &rows[i]
		}
		var earliest time.Time
		for i := range outcomes {
			out[i] = FinishedAttempt{AttemptID: outcomes[i].AttemptID}
			r := byID[outcomes[i].AttemptID]
			if r == nil {
				continue
			}
			if err := followUp(tx, &outcomes[i], r, &out[i]); err != nil {
				return err
			}
			if due := outcomes[i].Next; out[i].NextStored && (earliest.IsZero() || due.DueAt.Before(earliest)) {
				earliest = due.DueAt
			}
		}
		if earliest.IsZero() {
			return nil
		}
		// The other engines arm a timer for the earliest new attempt (the
		// writer arms its own).
		if err := tx.Exec(`SELECT pg_notify(?, ?)`, NotifyChannel, DuePayload(earliest)).Error; err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, translate("models: finish attempts", err)
	}
	return out, nil
}

// finishedRow is an attempt recorded by FinishAttempts with its job's state.
type finishedRow struct {
	ID            int64
	JobID         int64
	Action        string
	Attempt       int
	DueAt         time.Time
	StartedAt     time.Time
	ExpectedTime  time.Time
	Occurrence    int64
	State         string
	NextRunAt     *time.Time
	NeedsSchedule bool
}

// followUp stores the next attempt of a recorded outcome, or ends the job
// when its last occurrence ended.
func followUp(tx *gorm.DB, o *AttemptOutcome, r *finishedRow, res *FinishedAttempt) error {
	res.Recorded, res.JobID, res.Action, res.Attempt, res.DueAt, res.StartedAt = true, r.JobID, r.Action, r.Attempt, r.DueAt, r.StartedAt
	enabled := r.State == "enabled"
	if o.Next != nil && enabled {
		err := tx.Exec(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at)
			VALUES (?, ?, ?, ?, ?, 'pending', ?)
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING`,
			r.JobID, r.ExpectedTime, o.Next.Action, o.Next.Attempt, r.Occurrence, o.Next.DueAt).Error
		if err != nil {
			return fmt.Errorf("store next attempt of %d: %w", o.AttemptID, err)
		}
		res.NextStored = true
		return nil
	}
	if !enabled || o.Next != nil || r.NextRunAt != nil || r.NeedsSchedule {
		return nil
	}
	// The occurrence ended and the job has no next one: end the job when
	// nothing else of it is open. (How the occurrence ended is in
	// last_occurrence_faulted.)
	var states []string
	err := tx.Raw(`UPDATE jobs SET state = CASE WHEN last_occurrence_faulted THEN 'faulted' ELSE 'completed' END,
			ended_at = ?
		WHERE id = ? AND state = 'enabled' AND next_run_at IS NULL AND NOT needs_schedule AND NOT EXISTS (
			SELECT 1 FROM job_attempts o WHERE o.job_id = ? AND o.status IN ('pending', 'running'))
		RETURNING state`, o.Now, r.JobID, r.JobID).Scan(&states).Error
	if err != nil {
		return fmt.Errorf("end occurrence of attempt %d: %w", o.AttemptID, err)
	}
	res.JobEnded = len(states) == 1
	return nil
}

// cleanText makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// NextWake returns the earliest moment at which the engine has something
// to do: a due job, a pending attempt or an expiring lease (jobs and
// attempts of disabled collections aside). ok is false when there is none.
func (s *Store) NextWake(ctx context.Context) (at time.Time, ok bool, err error) {
	var row struct{ At *time.Time }
	err = s.db.WithContext(ctx).Raw(`SELECT least(
		(SELECT j.next_run_at FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE j.state = 'enabled' AND j.next_run_at IS NOT NULL AND c.state = 'Enabled'
		  ORDER BY j.next_run_at LIMIT 1),
		(SELECT a.due_at FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		  JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE a.status = 'pending' AND j.state = 'enabled' AND c.state = 'Enabled'
		  ORDER BY a.due_at LIMIT 1),
		(SELECT min(lease_expires_at) FROM job_attempts WHERE status = 'running'),
		(SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE needs_schedule AND state = 'enabled')
		        THEN 'epoch'::timestamptz END)
		) AS at`).Scan(&row).Error
	if err != nil {
		return time.Time{}, false, translate("models: next wake", err)
	}
	if row.At == nil {
		return time.Time{}, false, nil
	}
	return *row.At, true, nil
}

// DueBacklog counts the work due at now and not started: due jobs and due
// pending attempts of enabled jobs in enabled collections.
func (s *Store) DueBacklog(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT count(*) FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE j.state = 'enabled' AND j.next_run_at <= ? AND c.state = 'Enabled') +
		(SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id
		  JOIN job_collections c ON c.id = j.job_collection_id
		  WHERE a.status = 'pending' AND a.due_at <= ? AND j.state = 'enabled' AND c.state = 'Enabled')`,
		now, now).Scan(&n).Error
	if err != nil {
		return 0, translate("models: due backlog", err)
	}
	return n, nil
}

// RunNow queues an extra occurrence of job id, expected at now (kept to
// the microsecond): its first MainAction attempt becomes due at once and
// the engines are notified. The job's schedule is unchanged and the run
// does not count against recurrence.count. It returns the attempt's id,
// ErrNotFound, ErrJobFinished for a completed or faulted job, and
// ErrJobNotEnabled for a disabled one.
func (s *Store) RunNow(ctx context.Context, id int64, now time.Time) (int64, error) {
	now = now.Truncate(time.Microsecond)
	var attemptID int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var j struct {
			State           string
			OccurrenceCount int64
		}
		if err := tx.Raw(`SELECT state, occurrence_count FROM jobs WHERE id = ? FOR UPDATE`, id).Scan(&j).Error; err != nil {
			return err
		}
		switch j.State {
		case "":
			return ErrNotFound
		case "completed", "faulted":
			return ErrJobFinished
		case "disabled":
			return ErrJobNotEnabled
		}
		if err := tx.Raw(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at)
			VALUES (?, ?, 'MainAction', 1, ?, 'pending', ?) RETURNING id`,
			id, now, j.OccurrenceCount+1, now).Scan(&attemptID).Error; err != nil {
			return err
		}
		if err := tx.Exec(`UPDATE jobs SET occurrence_count = occurrence_count + 1 WHERE id = ?`, id).Error; err != nil {
			return err
		}
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return 0, translate("models: run job now", err)
	}
	return attemptID, nil
}

// SetJobEnabled enables or disables job id. Enabling a disabled job
// schedules it from now (the schedule base; its next occurrence is
// computed by an engine at once); disabling clears its next run and drops its pending retries and
// error actions, while an attempt already running finishes and is
// recorded. Enabling an enabled job or disabling a disabled one changes
// nothing. It returns ErrNotFound, or ErrJobFinished for a completed or
// faulted job.
func (s *Store) SetJobEnabled(ctx context.Context, id int64, enabled bool, now time.Time) error {
	state := "disabled"
	if enabled {
		state = "enabled"
	}
	var states []string
	err := s.db.WithContext(ctx).Raw(`UPDATE jobs SET state = ?, updated_at = now(),
			schedule_base = CASE WHEN ? = 'enabled' THEN ?::timestamptz ELSE schedule_base END
		WHERE id = ? AND state IN ('enabled', 'disabled') AND state <> ? RETURNING state`, state, state, now, id, state).Scan(&states).Error
	if err != nil {
		return translate("models: set job state", err)
	}
	if len(states) == 1 {
		return nil
	}
	var cur []string
	if err := s.db.WithContext(ctx).Raw(`SELECT state FROM jobs WHERE id = ?`, id).Scan(&cur).Error; err != nil {
		return translate("models: set job state", err)
	}
	switch {
	case len(cur) == 0:
		return translate("models: set job state", ErrNotFound)
	case cur[0] == "completed" || cur[0] == "faulted":
		return translate("models: set job state", ErrJobFinished)
	}
	return nil
}

// ReleaseAttempts gives back the running attempts ids that owner still
// holds (a graceful shutdown interrupted them): they become pending again,
// due at now, with the same attempt number, so that another engine runs
// them at once; no history entry or counter is written for the
// interrupted run. The engines are notified. It returns how many were
// released.
func (s *Store) ReleaseAttempts(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var n int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE job_attempts SET status = 'pending', due_at = ?, lease_owner = NULL, lease_expires_at = NULL,
				started_at = NULL
			WHERE id IN ? AND status = 'running' AND lease_owner = ?`, now, ids, owner)
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		return tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	})
	if err != nil {
		return 0, translate("models: release attempts", err)
	}
	return n, nil
}

// SetCollectionState sets the state (Enabled, Disabled or Suspended) of
// collection id. Jobs of a collection that is not Enabled do not run;
// enabling it wakes the engines. It returns ErrNotFound for an unknown
// collection.
func (s *Store) SetCollectionState(ctx context.Context, id int64, state string) error {
	res := s.db.WithContext(ctx).Exec(`UPDATE job_collections SET state = ?, updated_at = now() WHERE id = ?`, state, id)
	if res.Error != nil {
		return translate("models: set collection state", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: set collection state", ErrNotFound)
	}
	return nil
}

// Attempt is one row of job_attempts.
type Attempt struct {
	ID             int64
	JobID          int64
	ExpectedTime   time.Time
	Action         string
	Attempt        int
	Occurrence     int64
	Status         string
	DueAt          time.Time
	LeaseOwner     *string
	LeaseExpiresAt *time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
}

// Attempts returns the attempts of job id in the order they were made.
func (s *Store) Attempts(ctx context.Context, jobID int64) ([]Attempt, error) {
	var out []Attempt
	err := s.db.WithContext(ctx).Raw(`SELECT id, job_id, expected_time, action, attempt, occurrence, status, due_at,
		lease_owner, lease_expires_at, started_at, finished_at
		FROM job_attempts WHERE job_id = ? ORDER BY id`, jobID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: attempts", err)
	}
	return out, nil
}

// JobByID returns job id, or ErrNotFound.
func (s *Store) JobByID(ctx context.Context, id int64) (*Job, error) {
	var j Job
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&j).Error; err != nil {
		return nil, translate("models: job by id", err)
	}
	return &j, nil
}

// Retention says what Prune deletes. A zero or negative field disables
// that part.
type Retention struct {
	// HistoryMaxAge deletes history entries that started longer ago.
	HistoryMaxAge time.Duration
	// HistoryPerJob keeps only the newest entries of each job.
	HistoryPerJob int
	// FinishedJobMaxAge deletes completed and faulted jobs that ended
	// longer ago.
	FinishedJobMaxAge time.Duration
	// AttemptMaxAge deletes finished attempt rows that finished longer ago.
	AttemptMaxAge time.Duration
	// InstanceMaxAge deletes the rows of engine instances whose heartbeat
	// stopped longer ago and that hold no running attempt.
	InstanceMaxAge time.Duration
}

// PruneStats counts what Prune deleted.
type PruneStats struct {
	History, Jobs, Attempts, Instances int64
}

// Prune deletes, as of now, what r says is too old or too much. Several
// engines may prune at once: the deletes are idempotent.
func (s *Store) Prune(ctx context.Context, now time.Time, r Retention) (PruneStats, error) {
	var st PruneStats
	db := s.db.WithContext(ctx)
	if r.FinishedJobMaxAge > 0 {
		res := db.Exec(`DELETE FROM jobs WHERE ended_at IS NOT NULL AND ended_at < ?`, now.Add(-r.FinishedJobMaxAge))
		if res.Error != nil {
			return st, translate("models: prune jobs", res.Error)
		}
		st.Jobs = res.RowsAffected
	}
	if r.HistoryMaxAge > 0 {
		res := db.Exec(`DELETE FROM job_history WHERE start_time < ?`, now.Add(-r.HistoryMaxAge))
		if res.Error != nil {
			return st, translate("models: prune history", res.Error)
		}
		st.History += res.RowsAffected
	}
	if r.HistoryPerJob > 0 {
		res := db.Exec(`DELETE FROM job_history h USING (
				SELECT id FROM (
					SELECT id, row_number() OVER (PARTITION BY job_id ORDER BY start_time DESC, id DESC) AS n
					FROM job_history WHERE job_id IN (
						SELECT job_id FROM job_history GROUP BY job_id HAVING count(*) > ?)
				) ranked WHERE n > ?
			) old WHERE h.id = old.id`, r.HistoryPerJob, r.HistoryPerJob)
		if res.Error != nil {
			return st, translate("models: prune history", res.Error)
		}
		st.History += res.RowsAffected
	}
	if r.AttemptMaxAge > 0 {
		res := db.Exec(`DELETE FROM job_attempts WHERE finished_at IS NOT NULL AND finished_at < ?`, now.Add(-r.AttemptMaxAge))
		if res.Error != nil {
			return st, translate("models: prune attempts", res.Error)
		}
		st.Attempts = res.RowsAffected
	}
	if r.InstanceMaxAge > 0 {
		n, err := pruneInstances(db, now.Add(-r.InstanceMaxAge))
		if err != nil {
			return st, translate("models: prune instances", err)
		}
		st.Instances = n
	}
	return st, nil
}

// openSecrets opens a job's sealed secrets for the engine. A value that
// cannot be opened (a key no longer configured) gives no secrets: the
// attempt then fails with "is required" for the missing secret, which
// names the problem in the job's history, and an error is logged.
func (s *Store) openSecrets(jobID int64, sealed []byte) jobdef.Secrets {
	sec, err := s.box.open(sealed)
	if err != nil {
		slog.Error("cannot open the secrets of a job", "job_id", jobID, "err", err)
		return nil
	}
	return sec
}
