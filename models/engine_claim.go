package models

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sked/models/jobdef"
	"time"

	"gorm.io/gorm"
)

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
	// LastExpectedAt is the expected time of the last occurrence the
	// schedule started (nil: none yet): a plan to run one at or before it
	// names an occurrence that already ran, which is not started again.
	LastExpectedAt *time.Time
	// OpenAttempts counts the job's pending and running attempts: non-zero
	// means an earlier occurrence is still running (or waiting for a retry).
	OpenAttempts int64
	// LastOccurrenceFaulted says the most recently ended occurrence faulted.
	LastOccurrenceFaulted bool
	// SigningAt is the updated_at of the signing secret of the job's
	// collection, nil when the collection does not sign.
	SigningAt *time.Time
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
	// End, when jobdef.Completed or jobdef.Faulted, ends the job in that
	// state unless Run starts an occurrence (one that already ran does
	// not start again).
	End jobdef.State
	// Description is the job's schedule in plain English, for the events
	// of alert rules (jobInfo.description); "" leaves it to the sender.
	Description string
	// Deadlines are the occurrences started or skipped by this plan that
	// the job's deadline watches (engine_deadlines.go); nil without one.
	Deadlines []DeadlineWatch
}

// PlannedRun is an occurrence to start at once: its first MainAction
// attempt is inserted as running, leased to the claiming engine.
type PlannedRun struct {
	// ExpectedTime is the occurrence's scheduled instant (its identity).
	ExpectedTime time.Time
	// DueAt is when it was due: ExpectedTime shifted by the job's spread
	// window (SPEC §16.1), from which its lateness is measured; the zero
	// value means ExpectedTime.
	DueAt time.Time
	// Lease is how long the claiming engine may hold the attempt before
	// another engine considers it interrupted.
	Lease time.Duration
}

// Due returns when the run was due: DueAt, or ExpectedTime when unset.
func (r *PlannedRun) Due() time.Time {
	if r.DueAt.IsZero() {
		return r.ExpectedTime
	}
	return r.DueAt
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
	//
	// It stays inside the transaction on purpose: what it decides depends
	// on the locked row (next run, counters, open attempts), and deciding
	// outside would take a second transaction per claim that re-checks
	// that state (more commits, and lost races between engines claiming
	// the same rows), where the lock makes the decision final. The
	// engine's Plan is CPU only on compiled jobs it caches; its one
	// look-up, the calendars of a job that excludes some, is made once per
	// collection and claim.
	Plan func(*EngineJob) *JobPlan
	// Lease returns how long a pending attempt of action (MainAction or
	// ErrorAction) of job jobID with definition def may be held.
	Lease func(jobID int64, def json.RawMessage, secrets jobdef.Secrets, action ActionName) time.Duration
	// Target returns the host (NormalizeTargetHost's form) that an
	// attempt of action of job jobID with definition def sends to, the
	// key of its workspace's target limits ("" when it has none). Called
	// only while some workspace has a limit. Nil: no attempt counts under
	// a limit.
	Target func(jobID int64, def json.RawMessage, secrets jobdef.Secrets, action ActionName) string
	// RecoverAll makes the claim look for expired leases among all the
	// running records, not only the recent ones (recentRecords): the
	// engine sets it on its first claim and then once a minute, which
	// finds the records of an outage longer than the window. False (the
	// zero value) looks at the recent ones, as every frequent statement
	// does.
	RecoverAll bool
	// NextWake asks Claim to also return, when the claim started fewer
	// than Limit attempts, the next wake-up (what Store.NextWake returns
	// once the claim committed), read in the claim's transaction so that
	// it costs no transaction of its own. False: Claim does not read it.
	NextWake bool
	// Outcomes are attempt results that Claim records, as FinishAttempts
	// would, in its transaction before it claims (so that a busy engine
	// commits its results with its claims, and the claim sees them). Nil:
	// none. ClaimDue ignores them.
	Outcomes []AttemptOutcome
	// AttemptRows starts the occurrences of the schedule as job_attempts
	// rows, as releases before RecordsMigration do, instead of as running
	// history rows (records): the engine sets it while an instance of such
	// a release is alive (HeartbeatResult.OlderLive), whose reads of the
	// history know no running row. False (the zero value): records.
	AttemptRows bool
}

// ClaimResult is what Claim returns.
type ClaimResult struct {
	// Attempts are the claimed attempts, as ClaimDue returns them.
	Attempts []ClaimedAttempt
	// WakeRead says NextWake and HasNext were read (ClaimRequest.NextWake
	// was set and the claim started fewer than Limit attempts).
	WakeRead bool
	// NextWake is the earliest moment at which there is something to do
	// after this claim, when HasNext (see Store.NextWake).
	NextWake time.Time
	HasNext  bool
	// Finished is what was done with ClaimRequest.Outcomes, one per
	// outcome in order (see FinishAttempts).
	Finished []FinishedAttempt
}

// ClaimedAttempt is an attempt returned by ClaimDue: one to execute now
// (leased to the claimer), or, with Expired, one whose lease ran out and
// that must be finished as interrupted.
type ClaimedAttempt struct {
	// ID is the attempt's id (x-ms-scheduler-execution-tag; the history
	// entry's attempt_id). HistoryID is, for an attempt that is its
	// history row from its start (a record: migration 0041), that row's
	// id; 0 for a job_attempts row.
	ID         int64
	HistoryID  int64
	JobID      int64
	Definition json.RawMessage
	// SealedSecrets are the job's sealed secrets; Secrets them opened.
	SealedSecrets  []byte         `gorm:"column:secrets"`
	Secrets        jobdef.Secrets `gorm:"-"`
	ExpectedTime   time.Time
	Action         ActionName
	Attempt        int
	Occurrence     int64
	DueAt          time.Time
	StartedAt      time.Time
	LeaseExpiresAt time.Time
	Expired        bool
	// LimitHeldAt is when a claim first held the attempt for its host's
	// target limit (nil: never); LimitWaitMs how long it waited for the
	// limit, set when it starts; TargetHost the limited host it counts
	// under ("" when none).
	LimitHeldAt *time.Time
	LimitWaitMs *int64
	TargetHost  string `gorm:"-"`
	// AttemptBase is the attempt number this run of the action started
	// at (a re-run's first attempt; 0 or 1 otherwise): the retry policy
	// counts from it. RerunOf is the history entry a re-run re-runs.
	AttemptBase int
	RerunOf     *int64
	// JobCollectionID is the job's collection; SigningAt the updated_at of
	// its signing secret as the claim read it, nil when it does not sign
	// (zero and nil for expired attempts). The engine keeps a collection's
	// opened secrets while SigningAt stays the same.
	JobCollectionID int64
	SigningAt       *time.Time
	// Changes are the changes of a run with changes, as given (see
	// jobdef.ParseRunChanges), for the main action's request; nil for a
	// run as defined. BackfillID is the backfill that queued the attempt.
	Changes    json.RawMessage
	BackfillID *int64
}

// claimBatch caps the jobs scheduled and the expired leases reported by one
// claim, so that transactions stay short.
const claimBatch = 500

// ClaimDue, in one transaction: computes the schedule of jobs that need
// one (created, changed or re-enabled); starts the due occurrences of
// enabled jobs in enabled collections (at most req.Limit attempts, due
// pending attempts first, then due jobs), each as a running attempt leased
// to req.Owner; stores the notifications of the alert rules matching what
// it wrote (missed occurrences, jobs ended); and reports attempts whose
// lease expired. Rows locked by
// another engine are skipped (FOR UPDATE SKIP LOCKED), and the unique key
// of job_attempts makes a second start of one attempt impossible.
func (s *Store) ClaimDue(ctx context.Context, req ClaimRequest) ([]ClaimedAttempt, error) {
	req.Outcomes = nil
	res, err := s.Claim(ctx, req)
	return res.Attempts, err
}

// Claim is ClaimDue, and with req.NextWake it also reads the next wake-up
// in the same transaction when the claim started fewer than req.Limit
// attempts (the engine would otherwise read it right after, in a
// transaction of its own). It first records req.Outcomes in the same
// transaction: when that fails, nothing is recorded or claimed.
func (s *Store) Claim(ctx context.Context, req ClaimRequest) (ClaimResult, error) {
	// The database keeps microseconds: a record's start time (its
	// ClaimedAttempt.StartedAt) is then exactly its row's, which its
	// end names (AttemptOutcome.HistoryStart).
	req.Now = req.Now.Truncate(time.Microsecond)
	var out []ClaimedAttempt
	var res ClaimResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		out = out[:0]
		res = ClaimResult{}
		if len(req.Outcomes) > 0 {
			finished, err := finishAttemptsTx(tx, req.Outcomes)
			if err != nil {
				return err
			}
			res.Finished = finished
		}
		started := 0
		var evs []jobEvent
		if err := s.scheduleJobs(tx, req, &evs); err != nil {
			return err
		}
		limit := req.Limit
		var limits claimLimits
		if limit > 0 {
			var err error
			if limits, err = readLimits(tx); err != nil {
				return err
			}
		}
		if limit > 0 {
			started, err := s.startPendingAttempts(tx, req, limit, limits)
			if err != nil {
				return err
			}
			out = append(out, started...)
			limit -= len(started)
		}
		if limit > 0 {
			started, err := s.startDueJobs(tx, req, limit, limits, &evs)
			if err != nil {
				return err
			}
			out = append(out, started...)
			limit -= len(started)
		}
		if limit > 0 && len(limits) > 0 {
			started, err := s.startLimited(tx, req, limit)
			if err != nil {
				return err
			}
			out = append(out, started...)
		}
		started = len(out)
		expired, err := s.expiredLeases(tx, req)
		if err != nil {
			return err
		}
		out = append(out, expired...)
		if _, err := enqueueJobEvents(tx, evs); err != nil {
			return err
		}
		if req.NextWake && started < req.Limit {
			res.NextWake, res.HasNext, err = nextWake(tx, req.Now)
			res.WakeRead = err == nil
		}
		return err
	})
	if err != nil {
		return ClaimResult{}, translate("models: claim due work", err)
	}
	res.Attempts = out
	return res, nil
}

// scheduleJobs plans the jobs whose schedule must be computed, whatever
// their collection's state: computing is not running. A planned first
// occurrence that is due is started by startDueJobs, with the limit
// applied. The jobs that just get their next run are written at once
// (scheduleBulk); those with postponed entries or an end one by one.
func (s *Store) scheduleJobs(tx *gorm.DB, req ClaimRequest, evs *[]jobEvent) error {
	pending, err := scanAll(tx, (*EngineJob).fields, engineJobSelect(req.Now)+`
		WHERE j.needs_schedule AND j.state = 'enabled'
		ORDER BY j.id LIMIT ? FOR UPDATE OF j SKIP LOCKED`, claimBatch)
	if err != nil {
		return fmt.Errorf("select jobs to schedule: %w", err)
	}
	var bulk []scheduledPlan
	for i := range pending {
		pending[i].NeedsSchedule = true
		pending[i].Secrets = s.openSecrets(pending[i].ID, pending[i].SealedSecrets)
		plan := req.Plan(&pending[i])
		if plan != nil && plan.Run != nil {
			// Scheduling never starts a run itself.
			if plan.NextRunAt == nil || plan.Run.ExpectedTime.Before(*plan.NextRunAt) {
				t := plan.Run.ExpectedTime
				plan.NextRunAt = &t
			}
			plan.Run, plan.End = nil, ""
		}
		if plan != nil && len(plan.Postponed) == 0 && plan.End == "" {
			bulk = append(bulk, scheduledPlan{ID: pending[i].ID, Next: plan.NextRunAt, Sched: plan.ScheduledCount,
				Base: plan.ScheduleBase})
			continue
		}
		if _, err := applyPlan(tx, req, &pending[i], plan, nil, evs); err != nil {
			return err
		}
	}
	return scheduleBulk(tx, bulk)
}

// attemptLease is one started attempt's lease, for startPendingAttempts.
type attemptLease struct {
	ID    int64 `json:"id"`
	JobID int64 `json:"job_id"`
	// LeaseUS is the lease's length in microseconds (see leaseEndSQL).
	LeaseUS int64 `json:"lease_us"`
	// WaitMs is how long the attempt waited for a target limit (nil: it
	// was not held).
	WaitMs *int64 `json:"wait_ms"`
}

// leaseEndSQL is the end of a lease of length microseconds (an SQL
// expression), by the database's clock: leases are judged by it (SPEC
// §14.2), from the start of the claim's transaction, so that an instance
// whose clock is ahead or behind neither takes over a live lease nor gives
// its own ones too long.
func leaseEndSQL(microseconds string) string {
	return "now() + " + microseconds + " * interval '1 microsecond'"
}

// pendingAttemptColumns is the head of the queries that lock pending
// attempts a (with their jobs j and collections c) to start them.
const pendingAttemptColumns = `
		SELECT a.id, a.job_id, j.definition, j.secrets, a.expected_time, a.action, a.attempt, a.occurrence, a.due_at,
		       a.attempt_base, a.rerun_of, a.changes, a.backfill_id, j.job_collection_id, a.limit_held_at, ` + signingAtColumn + `
		FROM job_attempts a
		JOIN jobs j ON j.id = a.job_id
		JOIN job_collections c ON c.id = j.job_collection_id`

// pendingFields are the columns of pendingAttemptColumns, in its order,
// for scanAll.
func (a *ClaimedAttempt) pendingFields() []any {
	return []any{&a.ID, &a.JobID, (*[]byte)(&a.Definition), &a.SealedSecrets, &a.ExpectedTime, &a.Action, &a.Attempt,
		&a.Occurrence, &a.DueAt, &a.AttemptBase, &a.RerunOf, (*[]byte)(&a.Changes), &a.BackfillID, &a.JobCollectionID,
		&a.LimitHeldAt, &a.SigningAt}
}

// startPendingAttempts starts up to limit due pending attempts (retries,
// error actions, run now, triggered runs) of enabled jobs in enabled
// collections. It skips an attempt whose job another transaction holds
// (a write disabling it deletes its pending attempts under the job's
// lock: waiting for that job while holding the attempt would deadlock);
// the next claim takes it. Those
// to a host with a limit (limits) are held for it instead (tagAttempts):
// startLimited starts them.
func (s *Store) startPendingAttempts(tx *gorm.DB, req ClaimRequest, limit int, limits claimLimits) ([]ClaimedAttempt, error) {
	due, err := scanAll(tx, (*ClaimedAttempt).pendingFields, pendingAttemptColumns+`
		WHERE a.status = 'pending' AND a.due_at <= ? AND a.target_host IS NULL AND j.state = 'enabled' AND c.state = 'Enabled'
		ORDER BY a.due_at LIMIT ? FOR UPDATE OF a SKIP LOCKED FOR NO KEY UPDATE OF j SKIP LOCKED`, req.Now, limit)
	if err != nil {
		return nil, fmt.Errorf("select pending attempts: %w", err)
	}
	if len(due) == 0 {
		return nil, nil
	}
	for i := range due {
		due[i].Secrets = s.openSecrets(due[i].JobID, due[i].SealedSecrets)
	}
	if len(limits) > 0 {
		items := make([]targetItem, len(due))
		for i, a := range due {
			items[i] = targetItem{jobID: a.JobID, collection: a.JobCollectionID, def: a.Definition, secrets: a.Secrets, action: a.Action}
		}
		keys, err := limitedTargets(tx, req, limits, items)
		if err != nil {
			return nil, err
		}
		if keys != nil {
			var ids []int64
			var held []targetKey
			start := due[:0]
			for i := range due {
				if keys[i] == nil {
					start = append(start, due[i])
					continue
				}
				ids, held = append(ids, due[i].ID), append(held, *keys[i])
			}
			if err := tagAttempts(tx, req, ids, held); err != nil {
				return nil, err
			}
			due = start
		}
	}
	if err := s.startAttempts(tx, req, due); err != nil {
		return nil, err
	}
	return due, nil
}

// startAttempts starts the pending attempts due (locked by the claim): it
// leases them to req.Owner and sets their LeaseExpiresAt and, for one held
// by a target limit, how long it waited (LimitWaitMs, from its
// LimitHeldAt to req.Now). It locks their jobs in id order before it
// writes their last run (locks.go): two claims starting attempts of the
// same jobs (run now twice, or one upstream's end triggering several
// jobs twice) would otherwise lock them in two orders and deadlock.
func (s *Store) startAttempts(tx *gorm.DB, req ClaimRequest, due []ClaimedAttempt) error {
	if len(due) == 0 {
		return nil
	}
	leases := make([]attemptLease, len(due))
	for i := range due {
		a := &due[i]
		a.StartedAt = req.Now
		if a.Secrets == nil {
			a.Secrets = s.openSecrets(a.JobID, a.SealedSecrets)
		}
		leases[i] = attemptLease{ID: a.ID, JobID: a.JobID,
			LeaseUS: req.Lease(a.JobID, a.Definition, a.Secrets, a.Action).Microseconds()}
		if a.LimitHeldAt != nil {
			w := max(0, req.Now.Sub(*a.LimitHeldAt).Milliseconds())
			a.LimitWaitMs = &w
			leases[i].WaitMs = &w
		}
	}
	data, err := json.Marshal(leases)
	if err != nil {
		return fmt.Errorf("start attempts: %w", err)
	}
	var ends []struct {
		ID             int64
		LeaseExpiresAt time.Time
	}
	err = tx.Raw(`
		WITH l AS (SELECT * FROM json_to_recordset(?::json) AS l(id bigint, job_id bigint, lease_us bigint, wait_ms bigint)),
		a AS (UPDATE job_attempts t SET status = 'running', lease_owner = ?, lease_expires_at = `+leaseEndSQL("l.lease_us")+`,
		             started_at = ?::timestamptz, limit_wait_ms = l.wait_ms
		      FROM l WHERE t.id = l.id
		      RETURNING t.id, t.lease_expires_at),
		j AS (UPDATE jobs SET last_run_at = ?::timestamptz
		      FROM (SELECT id FROM jobs WHERE id IN (SELECT job_id FROM l) ORDER BY id FOR NO KEY UPDATE) k WHERE jobs.id = k.id)
		SELECT id, lease_expires_at FROM a`,
		string(data), req.Owner, req.Now, req.Now).Scan(&ends).Error
	if err != nil {
		return fmt.Errorf("start attempts: %w", err)
	}
	byID := make(map[int64]time.Time, len(ends))
	for _, e := range ends {
		byID[e.ID] = e.LeaseExpiresAt
	}
	for i := range due {
		due[i].LeaseExpiresAt = byID[due[i].ID]
	}
	return nil
}

// startDueJobs starts the due occurrences of up to limit enabled jobs in
// enabled collections, as planned by req.Plan. The common cases (start one
// occurrence, then move on to the next or, for a one-time job or a last
// occurrence, to none) are written for all jobs at once; the rest
// (postponed entries, nothing to start) one by one.
//
// An occurrence to a host with a limit (limits) is stored as a pending
// attempt held for it (its job moves on as for a started one), which
// startLimited starts. A held occurrence takes no worker: while a full
// selection held some, the jobs due next are selected again (up to
// claimBatch held in all), so that a burst due to a limited host does not
// keep the other hosts' jobs due at the same time waiting for many claims.
func (s *Store) startDueJobs(tx *gorm.DB, req ClaimRequest, limit int, limits claimLimits, evs *[]jobEvent) ([]ClaimedAttempt, error) {
	var out []ClaimedAttempt
	for held := 0; limit > 0 && held < claimBatch; {
		started, selected, nHeld, err := s.startDueJobsOnce(tx, req, limit, limits, evs)
		if err != nil {
			return nil, err
		}
		out = append(out, started...)
		full := selected == limit
		limit -= len(started)
		held += nHeld
		if nHeld == 0 || !full {
			break
		}
	}
	return out, nil
}

// startDueJobsOnce is one selection of startDueJobs: it returns the
// attempts started, how many jobs it selected and how many occurrences
// it held for a target limit.
func (s *Store) startDueJobsOnce(tx *gorm.DB, req ClaimRequest, limit int, limits claimLimits, evs *[]jobEvent) ([]ClaimedAttempt, int, int, error) {
	due, err := scanAll(tx, (*EngineJob).fields, engineJobSelect(req.Now)+`
		JOIN job_collections c ON c.id = j.job_collection_id
		WHERE j.state = 'enabled' AND j.next_run_at IS NOT NULL AND j.next_run_at <= ? AND c.state = 'Enabled'
		ORDER BY j.next_run_at LIMIT ? FOR UPDATE OF j SKIP LOCKED`, req.Now, limit)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("select due jobs: %w", err)
	}
	var out []ClaimedAttempt
	var bulk []bulkPlan
	byID := map[int64]*EngineJob{}
	plans := make([]*JobPlan, len(due))
	for i := range due {
		j := &due[i]
		j.Secrets = s.openSecrets(j.ID, j.SealedSecrets)
		plan := req.Plan(j)
		if plan != nil && plan.Run != nil && j.LastExpectedAt != nil && !plan.Run.ExpectedTime.After(*j.LastExpectedAt) {
			// That occurrence already ran (a job changed right after
			// it is scheduled from a second before its change:
			// scheduler/plan Decide). Its attempt is gone, its history
			// written: it is not started again, and the plan's end, if
			// any, applies.
			plan.Run = nil
		}
		plans[i] = plan
	}
	var holds []*targetKey
	if len(limits) > 0 {
		var items []targetItem
		var at []int
		for i := range due {
			if plans[i] != nil && plans[i].Run != nil {
				items = append(items, targetItem{jobID: due[i].ID, collection: due[i].JobCollectionID, def: due[i].Definition,
					secrets: due[i].Secrets, action: MainAction})
				at = append(at, i)
			}
		}
		keys, err := limitedTargets(tx, req, limits, items)
		if err != nil {
			return nil, 0, 0, err
		}
		if keys != nil {
			holds = make([]*targetKey, len(due))
			for n, i := range at {
				holds[i] = keys[n]
			}
		}
	}
	for i := range due {
		j, plan := &due[i], plans[i]
		var hold *targetKey
		if holds != nil {
			hold = holds[i]
		}
		if plan == nil || len(plan.Postponed) > 0 || plan.Run == nil {
			started, err := applyPlan(tx, req, j, plan, hold, evs)
			if err != nil {
				return nil, 0, 0, err
			}
			if started != nil {
				out = append(out, *started)
			}
			continue
		}
		byID[j.ID] = j
		bp := bulkPlan{ID: j.ID, Next: plan.NextRunAt, Sched: plan.ScheduledCount, Occ: j.OccurrenceCount,
			RunAt: plan.Run.ExpectedTime, DueAt: plan.Run.Due(), LeaseUS: plan.Run.Lease.Microseconds(), end: plan.End, description: plan.Description}
		if hold != nil {
			bp.TargetWS, bp.TargetHost = &hold.WS, &hold.Host
		}
		bulk = append(bulk, bp)
	}
	started, err := applyBulk(tx, req, bulk, byID, evs)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := watchDeadlines(tx, due, plans); err != nil {
		return nil, 0, 0, err
	}
	nHeld := 0
	for _, h := range holds {
		if h != nil {
			nHeld++
		}
	}
	return append(out, started...), len(due), nHeld, nil
}

// expiredLeases returns, locked, the running attempts whose engine lost
// them (crash, lost connection): their lease expired before now by the
// database's clock (the start of the claim's transaction). Records are
// looked for among the recent ones (recentRecords) unless req asks
// for all (RecoverAll).
func (s *Store) expiredLeases(tx *gorm.DB, req ClaimRequest) ([]ClaimedAttempt, error) {
	recent := ` AND ` + recentRecords("h.start_time", req.Now)
	if req.RecoverAll {
		recent = ""
	}
	// Both kinds of running attempt in one statement: job_attempts rows
	// and records (running history rows, migration 0041).
	expired, err := scanAll(tx, (*ClaimedAttempt).expiredFields, `
		WITH a AS (
			SELECT a.id, 0::bigint AS history_id, a.job_id, j.definition, j.secrets, a.expected_time, a.action, a.attempt,
			       a.occurrence, a.due_at, a.started_at, a.lease_expires_at, a.attempt_base, a.rerun_of
			FROM job_attempts a JOIN jobs j ON j.id = a.job_id
			WHERE a.status = 'running' AND a.lease_expires_at < now()
			ORDER BY a.lease_expires_at LIMIT ? FOR UPDATE OF a SKIP LOCKED
		), h AS (
			SELECT h.attempt_id AS id, h.id AS history_id, h.job_id, j.definition, j.secrets,
			       h.expected_execution_time AS expected_time, h.action_name AS action, h.retry_count + 1 AS attempt,
			       h.repeat_count AS occurrence, h.due_at, h.start_time AS started_at, h.lease_expires_at,
			       1 AS attempt_base, NULL::bigint AS rerun_of
			FROM job_history h JOIN jobs j ON j.id = h.job_id
			WHERE h.status = 'Running' AND h.lease_expires_at < now()`+recent+`
			ORDER BY h.lease_expires_at LIMIT ? FOR UPDATE OF h SKIP LOCKED
		)
		SELECT * FROM a UNION ALL SELECT * FROM h`, claimBatch, claimBatch)
	if err != nil {
		return nil, fmt.Errorf("select expired leases: %w", err)
	}
	for i := range expired {
		expired[i].Expired = true
		expired[i].Secrets = s.openSecrets(expired[i].JobID, expired[i].SealedSecrets)
	}
	return expired, nil
}

// expiredFields are the columns of expiredLeases' statement, in its
// order, for scanAll.
func (a *ClaimedAttempt) expiredFields() []any {
	return []any{&a.ID, &a.HistoryID, &a.JobID, (*[]byte)(&a.Definition), &a.SealedSecrets, &a.ExpectedTime, &a.Action,
		&a.Attempt, &a.Occurrence, &a.DueAt, &a.StartedAt, &a.LeaseExpiresAt, &a.AttemptBase, &a.RerunOf}
}

// engineJobSelect is the head of the queries that lock jobs for planning
// as of now; the running records they count are the recent ones
// (recentRecords).
func engineJobSelect(now time.Time) string {
	return `
	SELECT j.id, j.job_collection_id, j.definition, j.secrets, j.next_run_at, j.schedule_base, j.needs_schedule,
	       j.scheduled_count, j.occurrence_count, j.last_expected_at,
	       ` + lastOccurrenceFaultedOf + ` AS last_occurrence_faulted, ` + signingAtColumn + `,
	       (SELECT count(*) FROM job_attempts o WHERE o.job_id = j.id AND o.status IN ('pending', 'running'))
	       + (SELECT count(*) FROM job_history o WHERE o.job_id = j.id AND o.status = 'Running'
	          AND ` + recentRecords("o.start_time", now) + `) AS open_attempts
	FROM jobs j`
}

// fields are the columns of engineJobSelect, in its order, for scanAll.
func (j *EngineJob) fields() []any {
	return []any{&j.ID, &j.JobCollectionID, (*[]byte)(&j.Definition), &j.SealedSecrets, &j.NextRunAt, &j.ScheduleBase,
		&j.NeedsSchedule, &j.ScheduledCount, &j.OccurrenceCount, &j.LastExpectedAt, &j.LastOccurrenceFaulted,
		&j.SigningAt, &j.OpenAttempts}
}

// signingAtColumn reads, in the claim's queries of jobs j, the updated_at
// of the signing secret of j's collection (NULL when it does not sign).
const signingAtColumn = `(SELECT g.updated_at FROM collection_signing g WHERE g.job_collection_id = j.job_collection_id) AS signing_at`

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
