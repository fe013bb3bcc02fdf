package handlers

import (
	"context"
	"time"

	"sked/models"
	"sked/web"
)

// The pages' side of jobs that run after other jobs (SPEC §17.1): the
// job page's chain and an execution's causes and triggered runs.

// triggerChain reads the jobs job id runs after and that run after it.
func (s *Server) triggerChain(ctx context.Context, id int64) (web.TriggerChainView, error) {
	up, down, err := s.store.TriggerLinks(ctx, id)
	if err != nil {
		return web.TriggerChainView{}, err
	}
	return web.NewTriggerChainView(up, down), nil
}

// executionTriggers reads what triggered the run of execution d of job j
// (its main action's entries) and which runs d's end triggered.
func (s *Server) executionTriggers(ctx context.Context, j *models.JobDetail, d *models.ExecutionDetail) (web.ExecutionTriggersView, error) {
	var causes []models.TriggerCause
	if d.Entry.ActionName == models.MainAction {
		by, err := s.store.TriggerCauses(ctx, j.ID, []time.Time{d.Entry.ExpectedExecutionTime})
		if err != nil {
			return web.ExecutionTriggersView{}, err
		}
		causes = by[d.Entry.ExpectedExecutionTime.UTC()]
	}
	runs, err := s.store.TriggeredRuns(ctx, []int64{d.Entry.ID})
	if err != nil {
		return web.ExecutionTriggersView{}, err
	}
	return web.NewExecutionTriggersView(causes, runs[d.Entry.ID], web.ParseStored(j.Definition).Zone()), nil
}
