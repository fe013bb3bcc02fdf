package engine

import (
	"context"
	"sync"

	"sked/models"
)

// The engine driven step by step, for tests with a fake clock whose
// timers never fire: no Start, no loop, no writers.

// runDue claims everything due at the clock's now (up to MaxWorkers
// attempts), runs it, waits and records the results. It returns how many
// rows the claim returned. For tests that drive the engine step by step
// with a fake clock, without Start.
func (e *Engine) runDue(ctx context.Context) (int, error) {
	now := e.clock.Now()
	end := e.claimScope()
	res, err := e.store.Claim(ctx, e.claimRequest(now, e.cfg.MaxWorkers))
	end()
	if err != nil {
		return 0, err
	}
	got := res.Attempts
	outcomes := make([]models.AttemptOutcome, len(got))
	var wg sync.WaitGroup
	for i := range got {
		if got[i].Expired {
			outcomes[i] = e.interrupted(&got[i], now)
			continue
		}
		wg.Go(func() { outcomes[i] = e.execute(ctx, &got[i]) })
	}
	wg.Wait()
	if len(outcomes) > 0 {
		done, err := e.store.FinishAttempts(ctx, outcomes)
		if err != nil {
			return 0, err
		}
		e.observe(outcomes, done)
	}
	return len(got), nil
}

// sendDue claims the notifications due at the clock's now (up to
// NotifyWorkers), sends them and waits; it returns how many it claimed.
// For tests that drive the engine step by step, without Start.
func (o *outbox) sendDue(ctx context.Context) (int, error) {
	ns, err := o.store.ClaimNotifications(ctx, models.ClaimParams{Owner: o.cfg.Owner, Now: o.clock.Now(), Lease: o.cfg.Lease,
		Limit: cap(o.sem)})
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	for i := range ns {
		wg.Go(func() { o.deliver(&ns[i]) })
	}
	wg.Wait()
	return len(ns), nil
}
