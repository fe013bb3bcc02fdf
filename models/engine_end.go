package models

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sked/models/jobdef"

	"gorm.io/gorm"
)

// endWire is a job that FinishAttempts may end, as endFinishedJobs sends
// it: the job, the end time of the outcome that ended its occurrence and
// the outcome's place in the batch (the order of the audit entries).
type endWire struct {
	ID  int64     `json:"id"`
	At  time.Time `json:"at"`
	Ord int       `json:"ord"`
}

// endFinishedJobs ends, in one statement, the jobs of the outcomes (by
// index in outcomes, in batch order) whose occurrence ended with no next
// one, when nothing else of the job is open, and notes each ended job's
// final state in ended (by attempt id) and in res. (How the occurrence
// ended is in last_occurrence_faulted.) The engine's entries in the audit
// log are written by the same statement, in batch order. When a batch
// holds several such outcomes of one job, the first one ends it (at its
// end time), as one statement per outcome did.
func endFinishedJobs(tx *gorm.DB, outcomes []AttemptOutcome, rows map[int64]*finishedRow, res []FinishedAttempt,
	ending []int, ended map[int64]jobdef.State) error {
	if len(ending) == 0 {
		return nil
	}
	first := make(map[int64]int, len(ending)) // job id → outcome index
	ws := make([]endWire, 0, len(ending))
	for _, i := range ending {
		r := rows[outcomes[i].AttemptID]
		if _, ok := first[r.JobID]; ok {
			continue
		}
		first[r.JobID] = i
		ws = append(ws, endWire{ID: r.JobID, At: outcomes[i].Now, Ord: len(ws)})
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return fmt.Errorf("end %d jobs: %w", len(ws), err)
	}
	earliest := slices.MinFunc(ws, func(a, b endWire) int { return a.At.Compare(b.At) }).At
	var got []struct {
		ID    int64
		State jobdef.State
	}
	err = tx.Raw(`
		WITH e AS (
			SELECT * FROM json_to_recordset(?::json) AS e(id bigint, at timestamptz, ord int)
		), u AS (
			UPDATE jobs j SET state = CASE WHEN `+lastOccurrenceFaultedOf+` THEN 'faulted' ELSE 'completed' END,
				ended_at = e.at
			FROM e
			WHERE j.id = e.id AND j.state = 'enabled' AND j.next_run_at IS NULL AND NOT j.needs_schedule
			  AND NOT EXISTS (SELECT 1 FROM job_attempts o WHERE o.job_id = j.id AND o.status IN ('pending', 'running'))
			  AND NOT EXISTS (SELECT 1 FROM job_history o WHERE o.job_id = j.id AND o.status = 'Running'
			                  AND `+recentRecords("o.start_time", earliest)+`)
			RETURNING j.id, j.state, j.name, j.job_collection_id, e.at, e.ord
		), a AS (
			INSERT INTO audit_entries (at, workspace_id, actor_kind, actor_name, via, action, resource)
			SELECT j.at, g.workspace_id, ?, ?, ?, CASE WHEN j.state = ? THEN ? ELSE ? END, `+auditJobResourceSQL+`
			FROM u j JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
			ORDER BY j.ord
		)
		SELECT id, state FROM u`, string(data), ActorEngine, EngineActorName, EngineActorName,
		jobdef.Faulted, engineEndAction(jobdef.Faulted), engineEndAction(jobdef.Completed)).Scan(&got).Error
	if err != nil {
		return fmt.Errorf("end %d jobs: %w", len(ws), err)
	}
	ids := make([]int64, len(got))
	for k, g := range got {
		i := first[g.ID]
		res[i].JobEnded = true
		ended[outcomes[i].AttemptID] = g.State
		ids[k] = g.ID
	}
	return refreshJobCountsOf(tx, ids)
}
