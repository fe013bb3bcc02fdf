package models

import (
	"context"
	"encoding/json"
	"fmt"
	"sked/models/jobdef"
	"strings"
	"time"

	"gorm.io/gorm"
)

// NextAttempt is the attempt that follows a failed one within the same
// occurrence: a retry of the same action or the first error action attempt.
type NextAttempt struct {
	Action  ActionName
	Attempt int
	DueAt   time.Time
}

// AttemptOutcome is the result of one attempt, for FinishAttempts.
type AttemptOutcome struct {
	// AttemptID is the finished attempt; HistoryID its history row when it
	// is a record (ClaimedAttempt.HistoryID), 0 for a job_attempts row,
	// and HistoryStart that row's start time (ClaimedAttempt.StartedAt, as
	// stored: the history is partitioned on it, migration 0042). A record
	// whose HistoryStart differs from its row's is not recorded.
	AttemptID    int64
	HistoryID    int64
	HistoryStart time.Time
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
	// Exchange is what the attempt sent and received, masked and capped
	// (job_history_details); nil when it sent nothing.
	Exchange *Exchange
	// Description is the job's schedule in plain English, for the events
	// of alert rules (jobInfo.description); "" leaves it to the sender.
	Description string
	// Limited says the attempt counted under a target limit: recording
	// its end frees a slot that waiting attempts need, so the engine
	// records it without delay (no lingering for a batch).
	Limited bool
	// Upstream says other jobs run after the attempt's job (SPEC §17.1):
	// the engine records it without delay too, since their runs wait for
	// its end.
	Upstream bool
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
	Action  ActionName
	Attempt int
	DueAt   time.Time
	// StartedAt is when it started.
	StartedAt time.Time
	// NextStored says Next was stored; JobEnded that the job became
	// completed or faulted.
	NextStored bool
	JobEnded   bool
	// Notifications counts the notifications that the attempt's events
	// stored (or counted into a digest) for the alert rules of its job.
	Notifications int
	// Triggers counts the jobs that run after the attempt's job for which
	// its end was recorded (SPEC §17.1): the engine then fires them
	// (Store.FireTriggers).
	Triggers int
}

// FinishAttempts records outcomes in one transaction: per attempt, its
// history entry (a record's running row becomes it; a job_attempts row is
// deleted and the entry inserted: job_attempts holds the open attempts),
// its details, the job's counters, the next attempt of
// the occurrence when there is one and the job is still enabled, and the
// job's final state when it has no occurrence left and nothing open, and
// the notifications of the alert rules its events match (SPEC §13.3:
// stored in the transaction of the history entry causing them). The
// common part is one statement for the whole batch, the next attempts
// another, the jobs' ends (with their audit entries) a third. When it stores next
// attempts it notifies the engines with the earliest one's due time
// (DuePayload).
func (s *Store) FinishAttempts(ctx context.Context, outcomes []AttemptOutcome) ([]FinishedAttempt, error) {
	if len(outcomes) == 0 {
		return []FinishedAttempt{}, nil
	}
	var out []FinishedAttempt
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		out, err = finishAttemptsTx(tx, outcomes)
		return err
	})
	if err != nil {
		return nil, translate("models: finish attempts", err)
	}
	return out, nil
}

// finishAttemptsTx is FinishAttempts in transaction tx (FinishAttempts'
// own, or a claim's that records results before it claims: Claim with
// ClaimRequest.Outcomes). It returns one FinishedAttempt per outcome, in
// order; an error leaves tx to be rolled back.
func finishAttemptsTx(tx *gorm.DB, outcomes []AttemptOutcome) ([]FinishedAttempt, error) {
	out := make([]FinishedAttempt, len(outcomes))
	if len(outcomes) == 0 {
		return out, nil
	}
	type wire struct {
		ID         int64     `json:"id"`
		HID        int64     `json:"hid"`
		HST        time.Time `json:"hst"`
		Owner      string    `json:"owner"`
		Expired    bool      `json:"expired"`
		Fin        time.Time `json:"fin"`
		OK         bool      `json:"ok"`
		Msg        string    `json:"msg"`
		Faulted    bool      `json:"faulted"`
		Ended      bool      `json:"ended"`
		OccFaulted bool      `json:"occ_faulted"`
		detailWire
	}
	ws := make([]wire, len(outcomes))
	for i, o := range outcomes {
		det := exchangeWire(o.Exchange)
		ws[i] = wire{ID: o.AttemptID, HID: o.HistoryID, HST: o.HistoryStart.UTC(), Owner: o.Owner, Expired: o.Expired, Fin: o.Now, OK: o.Succeeded,
			Msg: cleanText(o.Message), Faulted: o.Faulted, Ended: o.Next == nil, OccFaulted: o.OccurrenceFaulted || o.Faulted,
			detailWire: det}
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return nil, fmt.Errorf("models: finish attempts: %w", err)
	}
	if err := recordOutcomes(tx, string(data), outcomes, out); err != nil {
		return nil, err
	}
	return out, nil
}

// recordOutcomes runs finishAttemptsTx's statements in tx for outcomes,
// sent as data (their JSON), and fills out.
func recordOutcomes(tx *gorm.DB, data string, outcomes []AttemptOutcome, out []FinishedAttempt) error {
	// This is the one place where an attempt's end is written. A record
	// (migration 0041: an attempt the schedule started, its history row
	// from the start) is updated once into its entry (r), keyed by its
	// row's id (AttemptOutcome.HistoryID): status, end time and message;
	// its start, lateness, due time and lease were written by the claim.
	// A job_attempts row is deleted (job_attempts holds the open ones:
	// migration 0031) and its history entry inserted by the same
	// statement (da, h). Both then go the same way: details, hourly
	// roll-up, results. The attempts' rows and their jobs' rows come
	// apart (a join of the two CTEs would be a nested loop: they are
	// estimated at one row each); joinFinishedRows joins them. The delete
	// finds its rows on the primary key (t.id = ANY of the batch's ids), and
	// its status check is a join clause (t.status = p.status, which
	// p holds to 'running') rather than one that the partial indexes
	// on status = 'running' could serve: however few running attempts
	// the statistics count, no plan reads all of them and the dead
	// entries those indexes keep of the finished ones until a vacuum
	// (a table the statistics find tiny may still be scanned). p, the
	// attempt as the statement found it (its lease owner is the
	// history's instance), is read on the primary key per outcome (a
	// lateral subquery kept apart by OFFSET 0). The batch is read as
	// jsonb (jsonb_to_recordset): each request and response is parsed
	// once, where json_to_recordset lexes it and jsonb's input parses
	// its text again.
	//
	// The statement's plan is cached per connection (a prepared
	// statement). One made while job_attempts' statistics still described
	// a young, near-empty table (a new installation, the first seconds of
	// a burst: autovacuum analyzes a minute later at the earliest) scans
	// the whole table per batch, comparing every row with the batch's ids:
	// measured at 15 % of PostgreSQL's CPU at 2,000 executions/s until the
	// plan is replaced. Sequential scans are off for this statement only
	// (TestFinishStatementPlanOnAYoungTable).
	//
	// Its plan is generic from the first execution on (plan_cache_mode),
	// for the same statement only. Its one parameter, the batch, tells
	// the planner nothing (it cannot see into the jsonb), so a custom plan
	// is the generic one planned again: PostgreSQL plans the first five
	// executions on each connection anew (about 1.5 ms each) before it
	// compares and keeps the generic plan, which cost 30–40 ms per engine
	// start and per new pooled connection, a tenth of the server's CPU in
	// a 10-s run at 200 executions/s (TestFinishStatementPlannedOnce).
	if err := tx.Exec(`SET LOCAL enable_seqscan = off; SET LOCAL plan_cache_mode = force_generic_plan`).Error; err != nil {
		return fmt.Errorf("finish attempts: %w", err)
	}
	lo, hi := recordSpan(outcomes)
	rows, err := scanAll(tx, (*finishedRow).fields, recordOutcomesSQL, data, lo, hi)
	if err == nil {
		err = tx.Exec(`SET LOCAL enable_seqscan TO DEFAULT; SET LOCAL plan_cache_mode TO DEFAULT`).Error
	}
	if err != nil {
		return fmt.Errorf("finish attempts: %w", err)
	}
	byID := joinFinishedRows(rows)
	for i := range rows {
		if rows[i].Limited {
			// A slot of a target limit is free: every engine looks for
			// the attempts waiting for it at once (SPEC §16.2).
			if err := tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error; err != nil {
				return fmt.Errorf("finish attempts: %w", err)
			}
			break
		}
	}
	var earliest time.Time
	var next []nextWire
	var ending []int
	for i := range outcomes {
		out[i] = FinishedAttempt{AttemptID: outcomes[i].AttemptID}
		r := byID[outcomes[i].AttemptID]
		if r == nil {
			continue
		}
		if followUp(&outcomes[i], r, &out[i], &next) {
			ending = append(ending, i)
		}
		if due := outcomes[i].Next; out[i].NextStored && (earliest.IsZero() || due.DueAt.Before(earliest)) {
			earliest = due.DueAt
		}
	}
	// The next attempts first: a job ends only when none is open. The
	// other engines arm a timer for the earliest (the writer arms its
	// own).
	if err := insertNextAttempts(tx, next, earliest); err != nil {
		return err
	}
	// A backfill's attempt that ended frees its slot (or retries in it).
	var backfills []int64
	var at time.Time
	for i := range outcomes {
		if r := byID[outcomes[i].AttemptID]; r != nil && r.BackfillID != nil {
			backfills = append(backfills, *r.BackfillID)
			if outcomes[i].Now.After(at) {
				at = outcomes[i].Now
			}
		}
	}
	if len(backfills) > 0 {
		if err := feedBackfillsOf(tx, backfills, at.Truncate(time.Microsecond)); err != nil {
			return err
		}
	}
	// Upstream ends for the jobs that run after them (SPEC §17.1); a
	// triggered job is not ended for lacking occurrences.
	ending, err = recordTriggerEnds(tx, outcomes, byID, out, ending) // engine_triggers.go
	if err != nil {
		return err
	}
	ended := map[int64]jobdef.State{}
	if err := endFinishedJobs(tx, outcomes, byID, out, ending, ended); err != nil {
		return err
	}
	evs := outcomeEvents(outcomes, out, byID, ended)
	if _, err := enqueueJobEvents(tx, evs); err != nil {
		return err
	}
	for _, ev := range evs {
		out[ev.src].Notifications += ev.stored
	}
	return nil
}

// recordOutcomesSQL is recordOutcomes' statement; its parameters are
// the batch (jsonb) and the earliest and latest start of its records
// (recordSpan): the history is partitioned by start (migration 0042),
// and bounds given as parameters let the plan, generic as it is, leave
// out every partition but the records' own when the statement starts (an
// array of the batch's starts would not: PostgreSQL prunes on an array
// only when it is a constant).
var recordOutcomesSQL = `
			WITH o AS (
				SELECT * FROM jsonb_to_recordset(?::jsonb) AS o(id bigint, hid bigint, hst timestamptz, owner text, expired boolean,
					fin timestamptz, ok boolean, msg text, faulted boolean, ended boolean, occ_faulted boolean,
					sent timestamptz, ikey text, req jsonb, resp jsonb)
			), da AS (
				DELETE FROM job_attempts t
				USING o CROSS JOIN LATERAL (SELECT p.lease_owner, p.status FROM job_attempts p
					WHERE p.id = o.id AND p.status = 'running' OFFSET 0) p
				WHERE t.id = ANY (ARRAY(SELECT id FROM o WHERE hid = 0)) AND t.id = o.id AND t.status = p.status
				  AND ((NOT o.expired AND t.lease_owner = o.owner) OR (o.expired AND t.lease_expires_at < now()))
				RETURNING t.id, t.job_id, t.action, t.attempt, t.due_at, t.started_at, t.expected_time, t.occurrence,
					t.attempt_base, t.rerun_of, t.rerun_by, t.changes, t.changes_shown, t.backfill_id,
					t.limit_wait_ms, t.target_host, p.lease_owner AS instance,
					o.ok, o.msg, o.fin, o.faulted, o.ended, o.occ_faulted, o.sent, o.ikey, o.req, o.resp,
					nextval('job_history_id_seq'::regclass) AS history_id, false AS record
			), r AS (
				UPDATE job_history t SET status = CASE WHEN o.ok THEN 'Completed' ELSE 'Failed' END,
					end_time = greatest(o.fin, t.start_time), message = o.msg
				FROM o
				WHERE t.id = ANY (ARRAY(SELECT hid FROM o WHERE hid <> 0)) AND t.id = o.hid AND t.status = 'Running'
				  AND t.start_time BETWEEN ?::timestamptz AND ?::timestamptz AND t.start_time = o.hst
				  AND ((NOT o.expired AND t.lease_owner = o.owner) OR (o.expired AND t.lease_expires_at < now()))
				RETURNING o.id, t.job_id, t.action_name AS action, t.retry_count + 1 AS attempt, t.due_at,
					t.start_time AS started_at, t.expected_execution_time AS expected_time, t.repeat_count AS occurrence,
					1 AS attempt_base, t.rerun_of, t.rerun_by, NULL::jsonb AS changes, t.changes AS changes_shown,
					t.backfill_id, t.limit_wait_ms, NULL::text AS target_host, t.lease_owner AS instance,
					o.ok, o.msg, o.fin, o.faulted, o.ended, o.occ_faulted, o.sent, o.ikey, o.req, o.resp,
					t.id AS history_id, true AS record, t.status, t.lateness_ms
			), a AS (
				SELECT * FROM da
				UNION ALL
				SELECT id, job_id, action, attempt, due_at, started_at, expected_time, occurrence, attempt_base, rerun_of,
				       rerun_by, changes, changes_shown, backfill_id, limit_wait_ms, target_host, instance, ok, msg, fin,
				       faulted, ended, occ_faulted, sent, ikey, req, resp, history_id, record
				FROM r
			), h AS (
				INSERT INTO job_history (id, job_id, start_time, end_time, expected_execution_time, action_name, status,
				                         message, retry_count, repeat_count, lateness_ms, attempt_id, rerun_of, rerun_by,
				                         changes, backfill_id, limit_wait_ms)
				OVERRIDING SYSTEM VALUE
				SELECT history_id, job_id, started_at, greatest(fin, started_at), expected_time, action,
				       CASE WHEN ok THEN 'Completed' ELSE 'Failed' END, msg, attempt - 1, occurrence,
				       greatest(0, (extract(epoch FROM started_at - due_at) * 1000)::bigint), id, rerun_of, rerun_by,
				       changes_shown, backfill_id, limit_wait_ms
				FROM da
				RETURNING id, attempt_id, job_id, start_time, status, lateness_ms
			), e AS (
				SELECT job_id, start_time, status, lateness_ms FROM h
				UNION ALL
				SELECT job_id, started_at, status, lateness_ms FROM r
			), hh AS (` + historyHoursAdd("e") + `
			), d AS (
				INSERT INTO job_history_details (history_id, start_time, instance, due_at, claimed_at, sent_at,
				                                 idempotency_key, request, response)
				SELECT history_id, started_at, instance, due_at, started_at, sent, nullif(ikey, ''), req, resp
				FROM a
			), g AS (
				SELECT job_id, count(*) AS n, count(*) FILTER (WHERE NOT ok) AS failed,
				       count(*) FILTER (WHERE faulted) AS faulted,
				       (array_agg(occ_faulted ORDER BY id DESC) FILTER (WHERE ended))[1] AS last_faulted,
				       bool_or(ended AND NOT occ_faulted) AS reset,
				       count(*) FILTER (WHERE faulted AND id > last_reset) AS faulted_after,
				       max(started_at) FILTER (WHERE NOT ok) AS last_failed,
				       (array_agg(ok ORDER BY started_at DESC, id DESC))[1] AS last_ok, max(started_at) AS last_start
				FROM (SELECT a.*, max(id) FILTER (WHERE ended AND NOT occ_faulted) OVER (PARTITION BY job_id) AS last_reset
				      FROM a) a
				GROUP BY job_id
			), l AS (
				SELECT g.*, r.consecutive_faults AS faults_before, j.state, j.next_run_at, j.needs_schedule
				FROM g JOIN jobs j ON j.id = g.job_id JOIN job_results r ON r.job_id = g.job_id
				ORDER BY j.id FOR UPDATE OF j, r
			), u AS (
				UPDATE job_results j SET execution_count = j.execution_count + l.n,
					failure_count = j.failure_count + l.failed, faulted_count = j.faulted_count + l.faulted,
					last_occurrence_faulted = coalesce(l.last_faulted, j.last_occurrence_faulted),
					consecutive_faults = CASE WHEN l.reset THEN l.faulted_after ELSE l.faults_before + l.faulted END,
					` + lastFailedSet("l.last_failed") + `,
					` + lastStatusSet(`CASE WHEN l.last_ok THEN 'Completed' ELSE 'Failed' END`, "l.last_start") + `
				FROM l WHERE j.job_id = l.job_id
				RETURNING j.job_id AS id, l.state, l.next_run_at, l.needs_schedule, l.faults_before AS consecutive_faults
			)
			SELECT false AS job_row, a.id, a.job_id, a.action, a.attempt, a.due_at, a.started_at, a.expected_time,
			       a.occurrence, a.attempt_base, a.rerun_of, a.rerun_by, a.changes, a.changes_shown, a.backfill_id,
			       '' AS state, NULL::timestamptz AS next_run_at, false AS needs_schedule, 0 AS consecutive_faults,
			       a.target_host IS NOT NULL AS limited, a.history_id
			FROM a
			UNION ALL
			SELECT true, 0, u.id, '', 0, 'epoch', 'epoch', 'epoch', 0, 0, NULL, NULL, NULL, NULL, NULL, u.state, u.next_run_at,
			       u.needs_schedule, u.consecutive_faults, false, 0
			FROM u`

// recordSpan returns the earliest and latest HistoryStart of the records
// among outcomes (the epoch twice when there is none: no partition is
// read).
func recordSpan(outcomes []AttemptOutcome) (lo, hi time.Time) {
	lo, hi = time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC()
	first := true
	for _, o := range outcomes {
		if o.HistoryID == 0 {
			continue
		}
		if first || o.HistoryStart.Before(lo) {
			lo = o.HistoryStart
		}
		if first || o.HistoryStart.After(hi) {
			hi = o.HistoryStart
		}
		first = false
	}
	return lo, hi
}

// finishedRow is an attempt recorded by FinishAttempts with its job's
// state. FinishAttempts' statement returns the attempts (JobRow false)
// and, apart, their jobs (JobRow true: JobID and the fields from State on).
type finishedRow struct {
	JobRow        bool
	ID            int64
	JobID         int64
	Action        ActionName
	Attempt       int
	DueAt         time.Time
	StartedAt     time.Time
	ExpectedTime  time.Time
	Occurrence    int64
	AttemptBase   int
	RerunOf       *int64
	RerunBy       *string
	Changes       json.RawMessage
	ChangesShown  json.RawMessage
	BackfillID    *int64
	State         jobdef.State
	NextRunAt     *time.Time
	NeedsSchedule bool
	// ConsecutiveFaults is the job's count before the batch, read under
	// the row's lock by the statement that records the batch and writes
	// the count after it (the faulted occurrences in a row: one more per
	// faulted main action, back to 0 when an occurrence ends without a
	// fault, in attempt order).
	ConsecutiveFaults int
	// Limited says the attempt counted under a target limit: its end
	// frees a slot.
	Limited bool
	// HistoryID is the attempt's history entry.
	HistoryID int64
}

// fields are the columns of recordOutcomesSQL's rows, in its order, for
// scanAll.
func (r *finishedRow) fields() []any {
	return []any{&r.JobRow, &r.ID, &r.JobID, &r.Action, &r.Attempt, &r.DueAt, &r.StartedAt, &r.ExpectedTime,
		&r.Occurrence, &r.AttemptBase, &r.RerunOf, &r.RerunBy, (*[]byte)(&r.Changes), (*[]byte)(&r.ChangesShown),
		&r.BackfillID, &r.State, &r.NextRunAt, &r.NeedsSchedule, &r.ConsecutiveFaults, &r.Limited, &r.HistoryID}
}

// joinFinishedRows returns the attempts of rows by id, each with its job's
// fields from its job's row; an attempt without one is left out.
func joinFinishedRows(rows []finishedRow) map[int64]*finishedRow {
	jobs := make(map[int64]*finishedRow, len(rows)/2)
	for i := range rows {
		if rows[i].JobRow {
			jobs[rows[i].JobID] = &rows[i]
		}
	}
	byID := make(map[int64]*finishedRow, len(rows)-len(jobs))
	for i := range rows {
		r := &rows[i]
		j := jobs[r.JobID]
		if r.JobRow || j == nil {
			continue
		}
		r.State, r.NextRunAt, r.NeedsSchedule, r.ConsecutiveFaults = j.State, j.NextRunAt, j.NeedsSchedule, j.ConsecutiveFaults
		byID[r.ID] = r
	}
	return byID
}

// nextWire is a next attempt to store, as insertNextAttempts sends it.
type nextWire struct {
	JobID        int64      `json:"job_id"`
	ExpectedTime time.Time  `json:"expected_time"`
	Action       ActionName `json:"action"`
	Attempt      int        `json:"attempt"`
	Occurrence   int64      `json:"occurrence"`
	DueAt        time.Time  `json:"due_at"`
	// Base, RerunOf and RerunBy carry a re-run's columns to its next
	// attempts; Fresh numbers the attempt after the occurrence's last one
	// of its action (a re-run's error action: the occurrence may have one),
	// open or finished (its history entry: retry_count is the attempt's
	// number − 1).
	Base    int     `json:"base"`
	RerunOf *int64  `json:"rerun_of"`
	RerunBy *string `json:"rerun_by"`
	Fresh   bool    `json:"fresh"`
	// Changes, Shown and BackfillID carry a run's changes and its
	// backfill to its next attempts.
	Changes    json.RawMessage `json:"changes,omitempty"`
	Shown      json.RawMessage `json:"changes_shown,omitempty"`
	BackfillID *int64          `json:"backfill_id,omitempty"`
}

// lastAttemptOf is the SQL expression of the number of the last attempt
// of action of job's occurrence expected at expected (SQL expressions),
// open (job_attempts) or finished (its history entry: retry_count is the
// attempt's number − 1); NULL when there is none.
func lastAttemptOf(job, expected, action string) string {
	return `greatest(
		(SELECT max(x.attempt) FROM job_attempts x
		 WHERE x.job_id = ` + job + ` AND x.expected_time = ` + expected + ` AND x.action = ` + action + `),
		(SELECT max(h.retry_count) + 1 FROM job_history h
		 WHERE h.job_id = ` + job + ` AND h.expected_execution_time = ` + expected + ` AND h.action_name = ` + action + `))`
}

// insertNextAttempts stores the next attempts of a batch in one statement
// (pending; an attempt already stored is left as it is), which also
// notifies the engines with the earliest one's due time (DuePayload).
func insertNextAttempts(tx *gorm.DB, next []nextWire, earliest time.Time) error {
	if len(next) == 0 {
		return nil
	}
	data, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("store next attempts: %w", err)
	}
	err = tx.Exec(`WITH i AS (INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
			attempt_base, rerun_of, rerun_by, changes, changes_shown, backfill_id)
		SELECT n.job_id, n.expected_time, n.action, coalesce(m.next, n.attempt), n.occurrence, 'pending', n.due_at,
			coalesce(m.next, n.base), n.rerun_of, n.rerun_by, n.changes, n.changes_shown, n.backfill_id
		FROM json_to_recordset(?::json) AS n(job_id bigint, expected_time timestamptz, action text, attempt int,
			occurrence bigint, due_at timestamptz, base int, rerun_of bigint, rerun_by text, fresh boolean,
			changes jsonb, changes_shown jsonb, backfill_id bigint)
		LEFT JOIN LATERAL (SELECT `+lastAttemptOf("n.job_id", "n.expected_time", "n.action")+` + 1 AS next
			WHERE n.fresh) m ON true
		ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING)
		SELECT pg_notify(?, ?)`, string(data), NotifyChannel, DuePayload(earliest)).Error
	if err != nil {
		return fmt.Errorf("store %d next attempts: %w", len(next), err)
	}
	return nil
}

// followUp fills res for a recorded outcome and adds its next attempt to
// next (stored with the batch's others by insertNextAttempts); it reports
// whether the occurrence ended with no next one, for endFinishedJobs.
func followUp(o *AttemptOutcome, r *finishedRow, res *FinishedAttempt, next *[]nextWire) (ending bool) {
	res.Recorded, res.JobID, res.Action, res.Attempt, res.DueAt, res.StartedAt = true, r.JobID, r.Action, r.Attempt, r.DueAt, r.StartedAt
	enabled := r.State == jobdef.Enabled
	if o.Next != nil && enabled {
		nw := nextWire{JobID: r.JobID, ExpectedTime: r.ExpectedTime, Action: o.Next.Action,
			Attempt: o.Next.Attempt, Occurrence: r.Occurrence, DueAt: o.Next.DueAt.Truncate(time.Microsecond),
			Base: max(r.AttemptBase, 1), RerunOf: r.RerunOf, RerunBy: r.RerunBy, BackfillID: r.BackfillID}
		if o.Next.Action == r.Action {
			// The changes are the main action's: its retries keep them.
			nw.Changes, nw.Shown = r.Changes, r.ChangesShown
		}
		if o.Next.Action != r.Action {
			// The other action starts its own count.
			nw.Base, nw.Fresh = o.Next.Attempt, r.RerunOf != nil
		}
		*next = append(*next, nw)
		res.NextStored = true
		return false
	}
	return enabled && o.Next == nil && r.NextRunAt == nil && !r.NeedsSchedule
}

// cleanText makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
