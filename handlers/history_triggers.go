package handlers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"sked/models"
)

// What triggered a run and what a run triggered (SPEC §17.1), in the
// history API's entries (extensions triggeredBy and triggered).

// armTriggerCause is an upstream occurrence's end that triggered the
// entry's run: the upstream's history entry (its ARM id), its job
// (rg/jc/name) and when it ended. The job is "" when the upstream was
// deleted since.
type armTriggerCause struct {
	ID      string `json:"id"`
	Job     string `json:"job"`
	EndTime string `json:"endTime"`
}

// armTriggeredRun is a run of a downstream job that the entry's end
// triggered: the job (rg/jc/name, and its ARM id) and the run's expected
// execution time (which its history entries carry).
type armTriggeredRun struct {
	JobID                 string `json:"jobId"`
	Job                   string `json:"job"`
	ExpectedExecutionTime string `json:"expectedExecutionTime"`
}

// triggerJobID is the ARM id of a job of the trigger graph.
func triggerJobID(j models.TriggerJob) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Scheduler/jobCollections/%s/jobs/%s",
		j.WorkspaceID, j.ResourceGroup, j.Collection, j.Name)
}

// addTriggerLinks fills the triggeredBy of the entries (of job j) of
// triggered runs and the triggered of the entries whose end triggered
// runs, out[i] being entries[i].
func (s *Server) addTriggerLinks(ctx context.Context, j *models.Job, entries []models.HistoryEntry, out []armHistory) error {
	if len(entries) == 0 {
		return nil
	}
	exp := make([]time.Time, 0, len(entries))
	ids := make([]int64, 0, len(entries))
	for _, e := range entries {
		exp = append(exp, e.ExpectedExecutionTime)
		ids = append(ids, e.ID)
	}
	causes, err := s.store.TriggerCauses(ctx, j.ID, exp)
	if err != nil {
		return err
	}
	runs, err := s.store.TriggeredRuns(ctx, ids)
	if err != nil {
		return err
	}
	for i, e := range entries {
		if e.ActionName == models.MainAction {
			for _, c := range causes[e.ExpectedExecutionTime.UTC()] {
				cause := armTriggerCause{Job: c.Upstream.Path(), EndTime: c.EndedAt.UTC().Format(time.RFC3339Nano)}
				if c.Upstream.Name != "" {
					cause.ID = triggerJobID(c.Upstream) + "/history/" + strconv.FormatInt(c.HistoryID, 10)
				} else {
					cause.Job = ""
				}
				out[i].Properties.TriggeredBy = append(out[i].Properties.TriggeredBy, cause)
			}
		}
		for _, r := range runs[e.ID] {
			out[i].Properties.Triggered = append(out[i].Properties.Triggered, armTriggeredRun{JobID: triggerJobID(r.Downstream),
				Job: r.Downstream.Path(), ExpectedExecutionTime: r.ExpectedTime.UTC().Format(time.RFC3339Nano)})
		}
	}
	return nil
}
