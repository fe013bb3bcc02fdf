package engine

import (
	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
	"time"
)

// outcome decides what follows an attempt that ended at now: a retry of
// the same action while its retry policy allows (attempts counted from
// the run's first, a re-run's included), else (main action) the error
// action once, else the end of the occurrence. The exchange of res goes
// with it to the history's details.
func outcome(a *models.ClaimedAttempt, spec *jobdef.Action, mainSpec *jobdef.Action, res action.Result, now time.Time) models.AttemptOutcome {
	o := models.AttemptOutcome{AttemptID: a.ID, HistoryID: a.HistoryID, HistoryStart: a.StartedAt, Now: now, Succeeded: res.Succeeded, Message: res.Message, Exchange: res.Exchange}
	if res.Succeeded {
		// An error action only runs when the main action faulted.
		o.OccurrenceFaulted = a.Action == models.ErrorAction
		return o
	}
	policy := jobdef.RetryPolicy{}
	if spec != nil {
		policy = spec.RetryPolicy
	}
	// A re-run counts its attempts from its first one (attempt_base).
	tries := a.Attempt - max(a.AttemptBase, 1) + 1
	switch {
	case tries < policy.MaxAttempts():
		o.Next = &models.NextAttempt{Action: a.Action, Attempt: a.Attempt + 1, DueAt: now.Add(retryDelay(policy, tries))}
	case a.Action == models.MainAction:
		o.Faulted, o.OccurrenceFaulted = true, true
		if mainSpec != nil && mainSpec.ErrorAction != nil {
			o.Next = &models.NextAttempt{Action: models.ErrorAction, Attempt: 1, DueAt: now}
		}
	default:
		o.OccurrenceFaulted = true
	}
	return o
}
