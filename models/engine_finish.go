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
	// Exchange is what the attempt sent and received, masked and capped
	// (job_history_details); nil when it sent nothing.
	Exchange *Exchange
	// Description is the job's schedule in plain English, for the events
	// of alert rules (jobInfo.description); "" leaves it to the sender.
	Description string
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
}

// FinishAttempts records outcomes in one transaction: per attempt, its
// final status, one history entry, the job's counters, the next attempt of
// the occurrence when there is one and the job is still enabled, and the
// job's final state when it has no occurrence left and nothing open, and
// the notifications of the alert rules its events match (SPEC §13.3:
// stored in the transaction of the history entry causing them). The
// common part is one statement for the whole batch, the next attempts
// another; only a job's end is a statement of its own. When it stores next
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
		detailWire
	}
	ws := make([]wire, len(outcomes))
	for i, o := range outcomes {
		det, err := exchangeWire(o.Exchange)
		if err != nil {
			return nil, fmt.Errorf("models: finish attempts: %w", err)
		}
		ws[i] = wire{ID: o.AttemptID, Owner: o.Owner, Expired: o.Expired, Fin: o.Now, OK: o.Succeeded,
			Msg: cleanText(o.Message), Faulted: o.Faulted, Ended: o.Next == nil, OccFaulted: o.OccurrenceFaulted || o.Faulted,
			detailWire: det}
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
					ok boolean, msg text, faulted boolean, ended boolean, occ_faulted boolean,
					sent timestamptz, ikey text, req jsonb, resp jsonb)
			), a AS (
				UPDATE job_attempts t SET status = CASE WHEN o.ok THEN 'succeeded' ELSE 'failed' END, finished_at = o.fin,
					lease_owner = NULL, lease_expires_at = NULL
				FROM o, job_attempts p
				WHERE t.id = o.id AND p.id = o.id AND t.status = 'running'
				  AND ((NOT o.expired AND t.lease_owner = o.owner) OR (o.expired AND t.lease_expires_at < o.fin))
				RETURNING t.id, t.job_id, t.action, t.attempt, t.due_at, t.started_at, t.expected_time, t.occurrence,
					t.attempt_base, t.rerun_of, t.rerun_by, p.lease_owner AS instance,
					o.ok, o.msg, o.fin, o.faulted, o.ended, o.occ_faulted, o.sent, o.ikey, o.req, o.resp
			), h AS (
				INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status,
				                         message, retry_count, repeat_count, lateness_ms, attempt_id, rerun_of, rerun_by)
				SELECT job_id, started_at, greatest(fin, started_at), expected_time, action,
				       CASE WHEN ok THEN 'Completed' ELSE 'Failed' END, msg, attempt - 1, occurrence,
				       greatest(0, (extract(epoch FROM started_at - due_at) * 1000)::bigint), id, rerun_of, rerun_by
				FROM a
				RETURNING id, attempt_id, job_id, start_time, status, lateness_ms
			), hh AS (`+historyHoursAdd("h")+`
			), d AS (
				INSERT INTO job_history_details (history_id, instance, due_at, claimed_at, sent_at, idempotency_key,
				                                 request, response)
				SELECT h.id, a.instance, a.due_at, a.started_at, a.sent, nullif(a.ikey, ''), a.req, a.resp
				FROM h JOIN a ON a.id = h.attempt_id
			), g AS (
				SELECT job_id, count(*) AS n, count(*) FILTER (WHERE NOT ok) AS failed,
				       count(*) FILTER (WHERE faulted) AS faulted,
				       (array_agg(occ_faulted ORDER BY id DESC) FILTER (WHERE ended))[1] AS last_faulted,
				       (array_agg(ok ORDER BY started_at DESC, id DESC))[1] AS last_ok, max(started_at) AS last_start
				FROM a GROUP BY job_id
			), u AS (
				UPDATE jobs j SET execution_count = j.execution_count + g.n, failure_count = j.failure_count + g.failed,
					faulted_count = j.faulted_count + g.faulted,
					last_occurrence_faulted = coalesce(g.last_faulted, j.last_occurrence_faulted),
					`+lastStatusSet(`CASE WHEN g.last_ok THEN 'Completed' ELSE 'Failed' END`, "g.last_start")+`
				FROM g WHERE j.id = g.job_id
				RETURNING j.id, j.state, j.next_run_at, j.needs_schedule, j.consecutive_faults
			)
			SELECT a.id, a.job_id, a.action, a.attempt, a.due_at, a.started_at, a.expected_time, a.occurrence,
			       a.attempt_base, a.rerun_of, a.rerun_by, u.state, u.next_run_at, u.needs_schedule, u.consecutive_faults
			FROM a JOIN u ON u.id = a.job_id`, string(data)).Scan(&rows).Error
		if err != nil {
			return fmt.Errorf("finish attempts: %w", err)
		}
		byID := make(map[int64]*finishedRow, len(rows))
		for i := range rows {
			byID[rows[i].ID] = &rows[i]
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
		// The next attempts first: a job ends only when none is open.
		if err := insertNextAttempts(tx, next); err != nil {
			return err
		}
		ended := map[int64]jobdef.State{}
		for _, i := range ending {
			if err := endFinishedJob(tx, &outcomes[i], byID[outcomes[i].AttemptID], &out[i], ended); err != nil {
				return err
			}
		}
		evs, err := outcomeEvents(tx, outcomes, out, byID, ended)
		if err != nil {
			return err
		}
		if _, err := enqueueJobEvents(tx, evs); err != nil {
			return err
		}
		for _, ev := range evs {
			out[ev.src].Notifications += ev.stored
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
	Action        ActionName
	Attempt       int
	DueAt         time.Time
	StartedAt     time.Time
	ExpectedTime  time.Time
	Occurrence    int64
	AttemptBase   int
	RerunOf       *int64
	RerunBy       *string
	State         jobdef.State
	NextRunAt     *time.Time
	NeedsSchedule bool
	// ConsecutiveFaults is the job's count before the batch (the update
	// that locked the row leaves it as it is; countFaults writes it).
	ConsecutiveFaults int
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
	// of its action (a re-run's error action: the occurrence may have one).
	Base    int     `json:"base"`
	RerunOf *int64  `json:"rerun_of"`
	RerunBy *string `json:"rerun_by"`
	Fresh   bool    `json:"fresh"`
}

// insertNextAttempts stores the next attempts of a batch in one statement
// (pending; an attempt already stored is left as it is).
func insertNextAttempts(tx *gorm.DB, next []nextWire) error {
	if len(next) == 0 {
		return nil
	}
	data, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("store next attempts: %w", err)
	}
	err = tx.Exec(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
			attempt_base, rerun_of, rerun_by)
		SELECT n.job_id, n.expected_time, n.action, coalesce(m.next, n.attempt), n.occurrence, 'pending', n.due_at,
			coalesce(m.next, n.base), n.rerun_of, n.rerun_by
		FROM json_to_recordset(?::json) AS n(job_id bigint, expected_time timestamptz, action text, attempt int,
			occurrence bigint, due_at timestamptz, base int, rerun_of bigint, rerun_by text, fresh boolean)
		LEFT JOIN LATERAL (SELECT max(x.attempt) + 1 AS next FROM job_attempts x
			WHERE n.fresh AND x.job_id = n.job_id AND x.expected_time = n.expected_time AND x.action = n.action) m ON true
		ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING`, string(data)).Error
	if err != nil {
		return fmt.Errorf("store %d next attempts: %w", len(next), err)
	}
	return nil
}

// followUp fills res for a recorded outcome and adds its next attempt to
// next (stored with the batch's others by insertNextAttempts); it reports
// whether the occurrence ended with no next one, for endFinishedJob.
func followUp(o *AttemptOutcome, r *finishedRow, res *FinishedAttempt, next *[]nextWire) (ending bool) {
	res.Recorded, res.JobID, res.Action, res.Attempt, res.DueAt, res.StartedAt = true, r.JobID, r.Action, r.Attempt, r.DueAt, r.StartedAt
	enabled := r.State == jobdef.Enabled
	if o.Next != nil && enabled {
		nw := nextWire{JobID: r.JobID, ExpectedTime: r.ExpectedTime, Action: o.Next.Action,
			Attempt: o.Next.Attempt, Occurrence: r.Occurrence, DueAt: o.Next.DueAt.Truncate(time.Microsecond),
			Base: max(r.AttemptBase, 1), RerunOf: r.RerunOf, RerunBy: r.RerunBy}
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

// endFinishedJob ends the job of an outcome whose occurrence ended with no
// next one, when nothing else of it is open, and notes its final state in
// ended (by attempt id). (How the occurrence ended is in
// last_occurrence_faulted.) The engine's entry in the audit log is written
// in the same transaction.
func endFinishedJob(tx *gorm.DB, o *AttemptOutcome, r *finishedRow, res *FinishedAttempt, ended map[int64]jobdef.State) error {
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
	if !res.JobEnded {
		return nil
	}
	ended[o.AttemptID] = jobdef.State(states[0])
	if err := refreshJobCountsOf(tx, []int64{r.JobID}); err != nil {
		return err
	}
	return insertEngineAudit(tx, r.JobID, engineEndAction(jobdef.State(states[0])), o.Now)
}

// cleanText makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
