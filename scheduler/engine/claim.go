package engine

import (
	"context"
	"fmt"
	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
	"time"
)

// claimed is what one claim of the loop did.
type claimed struct {
	// started counts the attempts it started, rows the rows it got.
	started, rows int
	// wakeRead says the claim's transaction also read the next wake-up
	// (next, hasNext: see models.Store.NextWake), so that the loop need
	// not read it again.
	wakeRead bool
	next     time.Time
	hasNext  bool
}

// claimDue claims with req in one transaction that also reads the next
// wake-up and records the result batch a writer hands over (see
// resultRide): the loop then saves a transaction per claim that leaves
// workers free, and one per batch of successes while it is busy.
func (e *Engine) claimDue(req models.ClaimRequest) (models.ClaimResult, error) {
	defer e.claimScope()()
	req.NextWake = true
	if !e.crashed.Load() {
		req.Outcomes = e.takeRide(e.cfg.ResultBatch)
	}
	e.ride.passed()
	res, err := e.store.Claim(e.bgCtx, req)
	switch {
	case err != nil && len(req.Outcomes) > 0:
		e.giveBack(req.Outcomes)
	case len(req.Outcomes) > 0:
		e.observe(req.Outcomes, res.Finished)
	}
	return res, err
}

// claim runs one claim with up to free attempts and dispatches what it
// got; the caller has reserved free slots (reserveSlots). The loop and the
// overlap loops call it at once.
func (e *Engine) claim(free int) (c claimed, err error) {
	now := e.clock.Now()
	// This claim covers everything due by now (what it leaves, NextWake
	// returns).
	e.alarm.reached(now)
	t0 := time.Now()
	res, err := e.claimDue(e.claimRequest(now, free))
	e.metrics.claim.Observe(time.Since(t0).Seconds())
	if err != nil {
		return claimed{}, err
	}
	got := res.Attempts
	c = claimed{rows: len(got), wakeRead: res.WakeRead, next: res.NextWake, hasNext: res.HasNext}
	e.traceClaim(now, t0, free, got)
	var expired []models.AttemptOutcome
	for i := range got {
		a := got[i]
		if a.Expired {
			e.logger.Warn("engine: attempt interrupted (its instance stopped answering)", "job_id", a.JobID, "attempt_id", a.ID)
			expired = append(expired, e.interrupted(&a, now))
			continue
		}
		c.started++
		e.dispatch(&a)
	}
	if len(expired) > 0 {
		// Recorded here, not by the writer, so that the next claim does not
		// report them again.
		done, err := e.store.FinishAttempts(e.bgCtx, expired)
		if err != nil {
			return c, fmt.Errorf("record interrupted attempts: %w", err)
		}
		e.observe(expired, done)
		// Their retries may be due before the wake-up read in the claim.
		c.wakeRead = false
	}
	return c, nil
}

func (e *Engine) claimRequest(now time.Time, limit int) models.ClaimRequest {
	all := false
	if last := e.recoveredAll.Load(); last == 0 || now.Sub(time.Unix(0, last)) >= recoverAllInterval {
		all = e.recoveredAll.CompareAndSwap(last, now.UnixNano())
	}
	return models.ClaimRequest{
		Now: now, Owner: e.id, Limit: limit, RecoverAll: all,
		Plan:   func(j *models.EngineJob) *models.JobPlan { return e.plan(j, now) },
		Lease:  e.leaseFor,
		Target: e.targetOf,

		AttemptRows: e.attemptRows.Load(),
	}
}

// recoverAllInterval is how often a claim looks for expired leases among
// all the running records (ClaimRequest.RecoverAll) rather than the
// recent ones: the records of an outage longer than the recent window are
// recovered within a minute of the engine's start.
const recoverAllInterval = time.Minute

// interrupted is the outcome of an attempt whose lease expired.
func (e *Engine) interrupted(a *models.ClaimedAttempt, now time.Time) models.AttemptOutcome {
	cj, _ := e.cache.get(a.JobID, a.Definition, a.Secrets, nil, jobCalendars{})
	spec, main := specsFor(cj, a.Action)
	o := outcome(a, spec, main, action.Result{
		Message: "interrupted: the instance running the attempt stopped answering (its heartbeat stopped or its lease expired)",
	}, now)
	o.Expired = true
	return o
}

// describe is the schedule description of a compiled job for the events
// of alert rules: its rule's, when the job was compiled with one; "".
func describe(cj *compiledJob) string {
	if cj == nil || cj.rule == nil {
		return ""
	}
	return cj.rule.Description()
}

// specsFor returns the spec of action and the main action's spec.
func specsFor(cj *compiledJob, act models.ActionName) (spec, main *jobdef.Action) {
	if cj == nil || cj.job.Action == nil {
		return nil, nil
	}
	if act == models.ErrorAction {
		return cj.job.Action.ErrorAction, cj.job.Action
	}
	return cj.job.Action, cj.job.Action
}

// execute runs attempt a and returns its outcome.
func (e *Engine) execute(ctx context.Context, a *models.ClaimedAttempt) models.AttemptOutcome {
	e.metrics.lateness.Observe(max(0, a.StartedAt.Sub(a.DueAt)).Seconds())
	e.metrics.observeTargetWait(a.TargetHost, a.LimitWaitMs)
	cj, err := e.cache.get(a.JobID, a.Definition, a.Secrets, nil, jobCalendars{})
	if err == nil {
		if done := e.watchSlow(a, cj); done != nil {
			defer done()
		}
	}
	var res action.Result
	var spec, main *jobdef.Action
	switch {
	case err != nil:
		res.Message = "the job definition cannot be read: " + err.Error()
	default:
		spec, main = specsFor(cj, a.Action)
		if spec == nil {
			res.Message = "the job has no " + string(a.Action)
			break
		}
		secrets, err := e.signingSecrets(ctx, a, spec)
		if err != nil {
			res.Message = err.Error()
			break
		}
		if spec, err = withChanges(spec, a); err != nil {
			res.Message = err.Error()
			break
		}
		res = e.exec.Execute(ctx, &action.Attempt{
			JobID: a.JobID, AttemptID: a.ID, ExpectedTime: a.ExpectedTime, Spec: spec, Timeout: spec.Timeout,
			SigningSecrets: secrets,
		})
	}
	o := outcome(a, spec, main, res, e.clock.Now())
	o.Owner = e.id
	o.Description = describe(cj)
	o.Limited = a.TargetHost != ""
	o.Upstream = e.upstreams.has(a.JobID) // triggers.go
	return o
}

// withChanges returns spec with the changes of a run with changes applied
// to its request (a copy; the cached spec is shared), or spec itself for
// an attempt without changes or of the error action.
func withChanges(spec *jobdef.Action, a *models.ClaimedAttempt) (*jobdef.Action, error) {
	if len(a.Changes) == 0 || a.Action != models.MainAction || spec.Request == nil {
		return spec, nil
	}
	ch, err := jobdef.ParseRunChanges(a.Changes)
	if err != nil {
		return nil, fmt.Errorf("the changes of this run cannot be read: %w", err)
	}
	out := *spec
	out.Request = ch.Apply(spec.Request)
	return &out, nil
}
