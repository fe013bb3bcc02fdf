package models

// Jobs that run after other jobs (SPEC §17.1, migration 0039): the
// engine's side, in two transactions.
//
//  1. The transaction that records an upstream attempt ending its
//     occurrence (FinishAttempts, or a claim recording results) inserts
//     one job_trigger_ends row per downstream whose trigger.on the end
//     matches (recordTriggerEnds). It reads the edges without locking and
//     locks no downstream row: a downstream's writer or delete never
//     waits for it, nor it for them.
//  2. FireTriggers, called by the engine that committed (and by every
//     engine's heartbeat, so that a crash between the two loses nothing),
//     locks one downstream at a time (its row, as run now does), consumes
//     its ends, folds them into its waits (the newest qualifying end per
//     upstream since its last triggered run), and for each satisfied set
//     queues a pending main action attempt due now, as run now does, with
//     the upstream ends that caused it in job_trigger_causes. The ends
//     are deleted by the transaction that queues the run: a trigger is
//     consumed exactly once, whichever engine does it.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sked/models/jobdef"

	"gorm.io/gorm"
)

// recordTriggerEnds stores, in tx (the transaction recording outcomes),
// the ends of upstream occurrences among the recorded outcomes for the
// jobs that run after them, and counts them in out's Triggers. An
// occurrence ends with its main action's last attempt: it succeeded, or
// failed with no further main attempt (its error action aside). It
// returns ending (outcome indexes whose jobs endFinishedJobs may end)
// without the triggered jobs: a job that runs after others has no
// occurrence of its own and is never completed for lacking one.
func recordTriggerEnds(tx *gorm.DB, outcomes []AttemptOutcome, rows map[int64]*finishedRow, out []FinishedAttempt, ending []int) ([]int, error) {
	type endWire struct {
		Ord     int       `json:"ord"`
		JobID   int64     `json:"job_id"`
		History int64     `json:"history_id"`
		Fin     time.Time `json:"fin"`
		OK      bool      `json:"ok"`
	}
	var ends []endWire
	for i, o := range outcomes {
		r := rows[o.AttemptID]
		if r == nil || r.Action != MainAction || (o.Next != nil && o.Next.Action == MainAction) {
			continue
		}
		ends = append(ends, endWire{Ord: i, JobID: r.JobID, History: r.HistoryID,
			Fin: o.Now.Truncate(time.Microsecond), OK: o.Succeeded})
	}
	if len(ends) > 0 {
		data, err := json.Marshal(ends)
		if err != nil {
			return nil, fmt.Errorf("record trigger ends: %w", err)
		}
		var got []struct {
			Ord int
			N   int
		}
		err = tx.Raw(`
			WITH x AS (
				SELECT * FROM json_to_recordset(?::json) AS x(ord int, job_id bigint, history_id bigint, fin timestamptz,
					ok boolean)
			), i AS (
				INSERT INTO job_trigger_ends (downstream_id, upstream_id, history_id, ended_at, succeeded)
				SELECT e.downstream_id, x.job_id, x.history_id, x.fin, x.ok
				FROM x
				JOIN job_trigger_upstreams e ON e.upstream_id = x.job_id
				WHERE e.on_status = 'finished' OR (e.on_status = 'succeeded') = x.ok
				RETURNING upstream_id, history_id
			)
			SELECT x.ord, count(*) AS n FROM x JOIN i ON i.upstream_id = x.job_id GROUP BY x.ord`, string(data)).Scan(&got).Error
		if err != nil {
			return nil, fmt.Errorf("record trigger ends: %w", err)
		}
		notify := false
		for _, g := range got {
			out[g.Ord].Triggers = g.N
			notify = true
		}
		if notify {
			// Every engine may fire them: the one committing does at once
			// (FinishedAttempt.Triggers); the others' heartbeats would.
			if err := tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error; err != nil {
				return nil, fmt.Errorf("record trigger ends: %w", err)
			}
		}
	}
	if len(ending) == 0 {
		return ending, nil
	}
	jobs := make([]int64, 0, len(ending))
	for _, i := range ending {
		jobs = append(jobs, rows[outcomes[i].AttemptID].JobID)
	}
	var triggered []int64
	if err := tx.Raw(`SELECT DISTINCT downstream_id FROM job_trigger_upstreams WHERE downstream_id = ANY (`+idsArray+`)`,
		idsJSON(jobs)).Scan(&triggered).Error; err != nil {
		return nil, fmt.Errorf("record trigger ends: %w", err)
	}
	if len(triggered) == 0 {
		return ending, nil
	}
	return slices.DeleteFunc(ending, func(i int) bool {
		return slices.Contains(triggered, rows[outcomes[i].AttemptID].JobID)
	}), nil
}

// TriggerEnd is an upstream occurrence's end that counts for a downstream
// job: the upstream's history entry of the attempt that ended it.
type TriggerEnd struct {
	UpstreamID int64
	HistoryID  int64
	EndedAt    time.Time
}

// FireTriggers queues, at now, the runs that the recorded upstream ends
// call for (SPEC §17.1), one downstream job per transaction, and returns
// how many runs it queued. A downstream that is not enabled (or whose
// collection is not), no longer has a trigger, or whose startTime is
// after an end, drops those ends (a trigger while it is disabled is lost,
// like a missed occurrence). Safe
// for concurrent use by several engines: a downstream's ends are consumed
// under its row's lock, once.
func (s *Store) FireTriggers(ctx context.Context, now time.Time) (int, error) {
	now = now.Truncate(time.Microsecond)
	var downs []int64
	if err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT downstream_id FROM job_trigger_ends ORDER BY 1 LIMIT 1000`).
		Scan(&downs).Error; err != nil {
		return 0, translate("models: fire triggers", err)
	}
	total := 0
	for _, d := range downs {
		var n int
		err := withRetry(ctx, func(int) error {
			return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
				n, err = fireTrigger(tx, d, now)
				return err
			})
		})
		if err != nil {
			return total, translate("models: fire triggers", err)
		}
		total += n
	}
	return total, nil
}

// fireTrigger is FireTriggers for the downstream job d in tx.
func fireTrigger(tx *gorm.DB, d int64, now time.Time) (int, error) {
	var j []struct {
		State           jobdef.State
		CollectionState string
		OccurrenceCount int64
		Definition      []byte
	}
	if err := tx.Raw(`SELECT j.state, c.state AS collection_state, j.occurrence_count, j.definition
		FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id WHERE j.id = ? FOR NO KEY UPDATE OF j`, d).Scan(&j).Error; err != nil {
		return 0, err
	}
	var ends []struct {
		ID int64
		TriggerEnd
	}
	if err := tx.Raw(`DELETE FROM job_trigger_ends WHERE downstream_id = ? RETURNING id, upstream_id, history_id, ended_at`, d).
		Scan(&ends).Error; err != nil {
		return 0, err
	}
	if len(j) == 0 || j[0].State != jobdef.Enabled || j[0].CollectionState != string(CollectionEnabled) || len(ends) == 0 {
		return 0, nil
	}
	job, err := jobdef.ParseWith(j[0].Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil || job.Trigger == nil {
		return 0, nil //nolint:nilerr // an unreadable or untriggered definition drops its ends
	}
	// The edges and the waits, in one round trip.
	var cur []struct {
		Edge bool
		TriggerEnd
	}
	if err := tx.Raw(`SELECT true AS edge, upstream_id, 0 AS history_id, 'epoch'::timestamptz AS ended_at
			FROM job_trigger_upstreams WHERE downstream_id = ?
		UNION ALL
		SELECT false, upstream_id, history_id, ended_at FROM job_trigger_waits WHERE downstream_id = ?`, d, d).Scan(&cur).Error; err != nil {
		return 0, err
	}
	var ups []int64
	for _, c := range cur {
		if c.Edge {
			ups = append(ups, c.UpstreamID)
		}
	}
	slices.Sort(ups)
	waits := map[int64]TriggerEnd{}
	for _, c := range cur {
		if !c.Edge && slices.Contains(ups, c.UpstreamID) {
			waits[c.UpstreamID] = c.TriggerEnd
		}
	}
	var from time.Time
	if st := job.StartTime; st != nil {
		from = st.Time
		if !st.HasOffset {
			from = time.Date(st.Time.Year(), st.Time.Month(), st.Time.Day(), st.Time.Hour(), st.Time.Minute(), st.Time.Second(),
				st.Time.Nanosecond(), job.Location())
		}
	}
	slices.SortFunc(ends, func(a, b struct {
		ID int64
		TriggerEnd
	}) int {
		if c := a.EndedAt.Compare(b.EndedAt); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	var runs [][]TriggerEnd
	for _, e := range ends {
		if !slices.Contains(ups, e.UpstreamID) || e.EndedAt.Before(from) {
			continue
		}
		waits[e.UpstreamID] = e.TriggerEnd
		if set, ok := triggerSet(waits, ups, job.Trigger.Within); ok {
			runs = append(runs, set)
			clear(waits)
		}
	}
	// The waits left, the runs and their causes, in one statement.
	type waitWire struct {
		U  int64     `json:"u"`
		H  int64     `json:"h"`
		At time.Time `json:"at"`
	}
	type runWire struct {
		Expected time.Time `json:"expected"`
		Occ      int64     `json:"occ"`
	}
	type causeWire struct {
		Expected time.Time `json:"expected"`
		waitWire
	}
	ws := []waitWire{}
	for _, w := range waits {
		ws = append(ws, waitWire{w.UpstreamID, w.HistoryID, w.EndedAt})
	}
	rs, cs := []runWire{}, []causeWire{}
	for k, set := range runs {
		expected := now.Add(time.Duration(k) * time.Microsecond)
		rs = append(rs, runWire{expected, j[0].OccurrenceCount + int64(k) + 1})
		for _, e := range set {
			cs = append(cs, causeWire{expected, waitWire{e.UpstreamID, e.HistoryID, e.EndedAt}})
		}
	}
	wd, _ := json.Marshal(ws)
	rd, _ := json.Marshal(rs)
	cd, _ := json.Marshal(cs)
	err = tx.Exec(`
		WITH dw AS (
			DELETE FROM job_trigger_waits WHERE downstream_id = ?
		), iw AS (
			INSERT INTO job_trigger_waits (downstream_id, upstream_id, history_id, ended_at)
			SELECT ?, u, h, at FROM json_to_recordset(?::json) AS w(u bigint, h bigint, at timestamptz)
			ON CONFLICT (downstream_id, upstream_id) DO UPDATE SET history_id = excluded.history_id, ended_at = excluded.ended_at
		), ia AS (
			INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at)
			SELECT ?, expected, 'MainAction', 1, occ, 'pending', expected FROM json_to_recordset(?::json) AS r(expected timestamptz, occ bigint)
		), ic AS (
			INSERT INTO job_trigger_causes (downstream_id, expected_time, upstream_id, upstream_history_id, upstream_ended_at)
			SELECT ?, expected, u, h, at FROM json_to_recordset(?::json) AS c(expected timestamptz, u bigint, h bigint, at timestamptz)
		), uj AS (
			UPDATE jobs SET occurrence_count = occurrence_count + ? WHERE id = ? AND ? > 0
		)
		SELECT CASE WHEN ? > 0 THEN pg_notify(?, ?) END`,
		d, d, string(wd), d, string(rd), d, string(cd), len(runs), d, len(runs), len(runs), NotifyChannel, DuePayload(now)).Error
	if err != nil {
		return 0, err
	}
	return len(runs), nil
}

// triggerSet returns the ends of waits that trigger a run, in the order of
// ups, when every upstream ups has one and (for a fan-in) the oldest lies
// at most within before the newest.
func triggerSet(waits map[int64]TriggerEnd, ups []int64, within time.Duration) ([]TriggerEnd, bool) {
	if len(ups) == 0 {
		return nil, false
	}
	set := make([]TriggerEnd, 0, len(ups))
	var oldest, newest time.Time
	for _, u := range ups {
		w, ok := waits[u]
		if !ok {
			return nil, false
		}
		if oldest.IsZero() || w.EndedAt.Before(oldest) {
			oldest = w.EndedAt
		}
		if w.EndedAt.After(newest) {
			newest = w.EndedAt
		}
		set = append(set, w)
	}
	if newest.Sub(oldest) > within {
		return nil, false
	}
	return set, true
}
