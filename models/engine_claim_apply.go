package models

import (
	"encoding/json"
	"fmt"
	"sked/models/jobdef"
	"time"

	"gorm.io/gorm"
)

// applyPlan writes plan for the locked job j: its postponed history, its
// started occurrence (returned), its next run or its end; it adds the
// events of what it wrote (missed, the job's end) to evs. With hold, the
// occurrence's attempt is stored pending, held for that target limit,
// and not returned.
func applyPlan(tx *gorm.DB, req ClaimRequest, j *EngineJob, plan *JobPlan, hold *targetKey, evs *[]jobEvent) (*ClaimedAttempt, error) {
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
		if err := rollHistoryEntry(tx, &e); err != nil {
			return nil, err
		}
		*evs = append(*evs, postponedEvent(&e, plan.Description))
	}
	occurrences := j.OccurrenceCount
	var started *ClaimedAttempt
	if plan.Run != nil && hold != nil {
		var ids []int64
		err := tx.Raw(`INSERT INTO job_attempts
			(job_id, expected_time, action, attempt, occurrence, status, due_at, target_workspace, target_host, limit_held_at)
			VALUES (?, ?, 'MainAction', 1, ?, 'pending', ?, ?, ?, ?)
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING RETURNING id`,
			j.ID, plan.Run.ExpectedTime, occurrences+1, plan.Run.ExpectedTime, hold.WS, hold.Host, req.Now).Scan(&ids).Error
		if err != nil {
			return nil, fmt.Errorf("hold occurrence of job %d: %w", j.ID, err)
		}
		if len(ids) == 1 {
			occurrences++
			adv := jobAdvance{ID: j.ID, Next: plan.NextRunAt, Scheduled: plan.ScheduledCount, Occurrences: occurrences,
				Base: plan.ScheduleBase, LastRun: &req.Now, LastExpected: &plan.Run.ExpectedTime}
			return nil, advanceJob(tx, adv)
		}
	} else if plan.Run != nil {
		a := ClaimedAttempt{
			JobID: j.ID, JobCollectionID: j.JobCollectionID, SigningAt: j.SigningAt,
			Definition: j.Definition, Secrets: j.Secrets, ExpectedTime: plan.Run.ExpectedTime, Action: MainAction,
			Attempt: 1, Occurrence: occurrences + 1, DueAt: plan.Run.Due(), StartedAt: req.Now,
		}
		var ids []struct {
			ID             int64
			HistoryID      int64
			LeaseExpiresAt time.Time
		}
		var err error
		if req.AttemptRows {
			err = tx.Raw(`INSERT INTO job_attempts
				(job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner, lease_expires_at, started_at)
				VALUES (?, ?, 'MainAction', 1, ?, 'running', ?, ?, `+leaseEndSQL("?::bigint")+`, ?)
				ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING RETURNING id, lease_expires_at`,
				a.JobID, a.ExpectedTime, a.Occurrence, a.DueAt, req.Owner, plan.Run.Lease.Microseconds(), a.StartedAt).Scan(&ids).Error
		} else {
			err = tx.Raw(`WITH p AS (SELECT ?::bigint AS id, ?::timestamptz AS run_at, ?::bigint AS occ, ?::timestamptz AS due_at,
					?::bigint AS lease_us, ?::text AS owner, ?::timestamptz AS started)
				`+insertRecordsSQL("p")+`
				RETURNING attempt_id AS id, id AS history_id, lease_expires_at`,
				a.JobID, a.ExpectedTime, occurrences, a.DueAt, plan.Run.Lease.Microseconds(), req.Owner, a.StartedAt).Scan(&ids).Error
		}
		if err != nil {
			return nil, fmt.Errorf("start occurrence of job %d: %w", j.ID, err)
		}
		if len(ids) == 1 {
			a.ID, a.HistoryID, a.LeaseExpiresAt = ids[0].ID, ids[0].HistoryID, ids[0].LeaseExpiresAt
			started = &a
			occurrences++
		}
	}
	adv := jobAdvance{ID: j.ID, Next: plan.NextRunAt, Scheduled: plan.ScheduledCount, Occurrences: occurrences,
		Base: plan.ScheduleBase}
	if started != nil {
		adv.LastRun, adv.LastExpected = &req.Now, &started.ExpectedTime
	}
	if err := advanceJob(tx, adv); err != nil {
		return nil, err
	}
	if plan.End != "" && started == nil {
		if err := endJob(tx, j.ID, plan.End, req.Now); err != nil {
			return nil, err
		}
		*evs = append(*evs, endEvent(j.ID, plan.End, req.Now, plan.Description))
	}
	return started, nil
}

// jobAdvance is what advanceJob writes to a planned job's row.
type jobAdvance struct {
	ID int64
	// Next is the next run (nil: none); Scheduled and Occurrences the new
	// scheduled_count and occurrence_count.
	Next                   *time.Time
	Scheduled, Occurrences int64
	// LastRun and LastExpected, when not nil, are the start and the
	// expected time of the occurrence just started.
	LastRun, LastExpected *time.Time
	// Base, when not nil, replaces the schedule base.
	Base *time.Time
}

// advanceJob writes a planned job's next run, counters and schedule base.
// The state is not named: only endJob changes it.
func advanceJob(tx *gorm.DB, p jobAdvance) error {
	err := tx.Exec(`UPDATE jobs SET next_run_at = ?, needs_schedule = false, scheduled_count = ?, occurrence_count = ?,
			last_run_at = coalesce(?, last_run_at), last_expected_at = coalesce(?, last_expected_at),
			schedule_base = coalesce(?, schedule_base)
		WHERE id = ?`,
		p.Next, p.Scheduled, p.Occurrences, p.LastRun, p.LastExpected, p.Base, p.ID).Error
	if err != nil {
		return fmt.Errorf("advance job %d: %w", p.ID, err)
	}
	return nil
}

// bulkPlan is one job's plan in applyBulk: start the occurrence RunAt and
// move on to Next.
type bulkPlan struct {
	ID    int64      `json:"id"`
	Next  *time.Time `json:"next"`
	Sched int64      `json:"sched"`
	Occ   int64      `json:"occ"`
	RunAt time.Time  `json:"run_at"`
	// DueAt is when the occurrence RunAt was due (RunAt shifted by the
	// job's spread window).
	DueAt time.Time `json:"due_at"`
	// LeaseUS is the attempt's lease in microseconds (see leaseEndSQL).
	LeaseUS int64 `json:"lease_us"`
	// TargetWS and TargetHost, when set, hold the attempt for that target
	// limit: it is stored pending, not started.
	TargetWS   *string `json:"tws"`
	TargetHost *string `json:"thost"`
	// end, when not empty, ends the job in that state if its occurrence
	// is not started (it already ran); description is for the end's event.
	end         jobdef.State
	description string
}

// applyBulk writes plans that each start one occurrence, in one statement:
// the attempts are inserted (an occurrence whose attempt is open is not
// started again: the unique key of job_attempts; startDueJobs has left
// out those that already ran) and the jobs advanced, with the expected
// time of the occurrence started (last_expected_at). A job whose plan has an
// end and whose occurrence was not started ends (endJob), its event added
// to evs, as applyPlan does.
func applyBulk(tx *gorm.DB, req ClaimRequest, plans []bulkPlan, jobs map[int64]*EngineJob, evs *[]jobEvent) ([]ClaimedAttempt, error) {
	if len(plans) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(plans)
	if err != nil {
		return nil, fmt.Errorf("start occurrences: %w", err)
	}
	// The occurrences held for a target limit (thost) are pending
	// job_attempts rows; the others are started as records (running
	// history rows, rec), or as running job_attempts rows with
	// req.AttemptRows.
	rows, err := scanAll(tx, (*startedRow).fields, startOccurrencesSQL,
		string(data), req.Owner, req.Now, req.Now, req.AttemptRows, req.Owner, req.Now, req.AttemptRows, req.Now)
	if err != nil {
		return nil, fmt.Errorf("start occurrences: %w", err)
	}
	byJob := make(map[int64]*bulkPlan, len(plans))
	for i := range plans {
		byJob[plans[i].ID] = &plans[i]
	}
	var out []ClaimedAttempt
	for _, r := range rows {
		p, j := byJob[r.JobID], jobs[r.JobID]
		if r.AttemptID == nil {
			if p.end != "" {
				if err := endJob(tx, r.JobID, p.end, req.Now); err != nil {
					return nil, err
				}
				*evs = append(*evs, endEvent(r.JobID, p.end, req.Now, p.description))
			}
			continue
		}
		if r.LeaseExpiresAt == nil {
			continue // held for a target limit
		}
		out = append(out, ClaimedAttempt{ID: *r.AttemptID, HistoryID: r.HistoryID, JobID: r.JobID, JobCollectionID: j.JobCollectionID,
			SigningAt: j.SigningAt, Definition: j.Definition, Secrets: j.Secrets,
			ExpectedTime: p.RunAt, Action: MainAction, Attempt: 1, Occurrence: p.Occ + 1, DueAt: p.DueAt,
			StartedAt: req.Now, LeaseExpiresAt: *r.LeaseExpiresAt})
	}
	return out, nil
}

// startedRow is a row of startOccurrencesSQL: a job advanced, with the
// attempt started for it (AttemptID nil: none; LeaseExpiresAt nil: held
// for a target limit) and its history entry (0: a job_attempts row).
type startedRow struct {
	JobID          int64
	AttemptID      *int64
	HistoryID      int64
	LeaseExpiresAt *time.Time
}

// fields are startedRow's columns, in the statement's order, for scanAll.
func (r *startedRow) fields() []any {
	return []any{&r.JobID, &r.AttemptID, &r.HistoryID, &r.LeaseExpiresAt}
}

// startOccurrencesSQL is applyBulk's statement. Its parameters: the plans
// (json), the owner, now and now (job_attempts rows), whether attempts
// are job_attempts rows (req.AttemptRows), the owner and now (records),
// AttemptRows again, and now (the jobs' last run).
//
// The jobs are found on their primary key, an index scan per batch: the
// planner cannot see into the batch (a json parameter: it assumes 100
// rows), and joining it to jobs on j.id = p.id alone, it found a hash
// join over a scan of the whole table cheaper while jobs fits in a few
// hundred pages (measured: every claim read all 5,000 jobs of the
// side-by-side benchmark, 1–5 ms per claim). j.id = ANY (ARRAY(...)) is
// estimated at a handful of ids (TestStartOccurrencesFindsJobsOnTheirKey).
var startOccurrencesSQL = `
		WITH p AS (
			SELECT * FROM json_to_recordset(?::json)
				AS p(id bigint, next timestamptz, sched bigint, occ bigint, run_at timestamptz, due_at timestamptz, lease_us bigint,
				     tws text, thost text)
		), ins AS (
			INSERT INTO job_attempts
				(job_id, expected_time, action, attempt, occurrence, status, due_at, lease_owner, lease_expires_at, started_at,
				 target_workspace, target_host, limit_held_at)
			SELECT id, run_at, 'MainAction', 1, occ + 1, CASE WHEN thost IS NULL THEN 'running' ELSE 'pending' END, due_at,
			       CASE WHEN thost IS NULL THEN ?::text END,
			       CASE WHEN thost IS NULL THEN ` + leaseEndSQL("lease_us") + ` END,
			       CASE WHEN thost IS NULL THEN ?::timestamptz END,
			       tws, thost, CASE WHEN thost IS NOT NULL THEN ?::timestamptz END FROM p
			WHERE thost IS NOT NULL OR ?::boolean
			ON CONFLICT (job_id, expected_time, action, attempt) DO NOTHING
			RETURNING id, 0::bigint AS history_id, job_id, lease_expires_at
		), pr AS (
			SELECT p.*, ?::text AS owner, ?::timestamptz AS started FROM p WHERE p.thost IS NULL AND NOT ?::boolean
		), rec AS (
			` + insertRecordsSQL("pr") + `
			RETURNING attempt_id AS id, id AS history_id, job_id, lease_expires_at
		), s AS (
			SELECT * FROM ins UNION ALL SELECT * FROM rec
		)
		UPDATE jobs j SET next_run_at = p.next, needs_schedule = false, scheduled_count = p.sched,
			occurrence_count = p.occ + (CASE WHEN s.id IS NULL THEN 0 ELSE 1 END),
			last_run_at = CASE WHEN s.id IS NULL THEN j.last_run_at ELSE ?::timestamptz END,
			last_expected_at = CASE WHEN s.id IS NULL THEN j.last_expected_at ELSE p.run_at END
		FROM p LEFT JOIN s ON s.job_id = p.id
		WHERE j.id = ANY (ARRAY(SELECT id FROM p)) AND j.id = p.id
		RETURNING j.id AS job_id, s.id AS attempt_id, coalesce(s.history_id, 0) AS history_id, s.lease_expires_at`

// scheduledPlan is one job's plan in scheduleBulk: its first (or next)
// run computed, nothing started, nothing postponed, no end.
type scheduledPlan struct {
	ID    int64      `json:"id"`
	Next  *time.Time `json:"next"`
	Sched int64      `json:"sched"`
	Base  *time.Time `json:"base"`
}

// scheduleBulk writes the next runs that scheduleJobs planned, in one
// statement (advanceJob's columns, the occurrence count and last run
// unchanged).
func scheduleBulk(tx *gorm.DB, plans []scheduledPlan) error {
	if len(plans) == 0 {
		return nil
	}
	data, err := json.Marshal(plans)
	if err != nil {
		return fmt.Errorf("schedule jobs: %w", err)
	}
	// The jobs are found on their primary key, as startOccurrencesSQL's.
	err = tx.Exec(`
		WITH p AS (SELECT * FROM json_to_recordset(?::json) AS p(id bigint, next timestamptz, sched bigint, base timestamptz))
		UPDATE jobs j SET next_run_at = p.next, needs_schedule = false, scheduled_count = p.sched,
			schedule_base = coalesce(p.base, j.schedule_base)
		FROM p
		WHERE j.id = ANY (ARRAY(SELECT id FROM p)) AND j.id = p.id`, string(data)).Error
	if err != nil {
		return fmt.Errorf("schedule %d jobs: %w", len(plans), err)
	}
	return nil
}

// insertRecordsSQL is the INSERT that starts the occurrences of the rows
// of from (columns id: the job, run_at, occ: the job's occurrence count
// before, due_at, lease_us, owner, started) as records: running history
// rows (migration 0041), leased to owner from started. An occurrence with
// an open job_attempts row (the unique key's) is not started; one that
// already ran was left out by the claim (jobs.last_expected_at, read under
// the job's row lock). Its WHERE may be extended with AND on p; the
// statement ends with its RETURNING. The attempt's id comes from
// job_attempts' own sequence, so that an attempt id names one attempt
// whatever its kind.
func insertRecordsSQL(from string) string {
	return `INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status, retry_count,
				repeat_count, lateness_ms, attempt_id, lease_owner, lease_expires_at, due_at)
			SELECT p.id, p.started, p.run_at, 'MainAction', 'Running', 0, p.occ + 1,
			       greatest(0, (extract(epoch FROM p.started - p.due_at) * 1000)::bigint),
			       nextval('job_attempts_id_seq'::regclass), p.owner, ` + leaseEndSQL("p.lease_us") + `, p.due_at
			FROM ` + from + ` p
			WHERE NOT EXISTS (SELECT 1 FROM job_attempts x WHERE x.job_id = p.id AND x.expected_time = p.run_at
			                  AND x.action = 'MainAction' AND x.attempt = 1)`
}
