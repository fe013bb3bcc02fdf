package engine

import (
	"context"
	"sync/atomic"

	"sked/models"
)

// Jobs that run after other jobs (SPEC §17.1). The transaction that
// records an upstream occurrence's end stores it for the jobs that run
// after it (models.FinishedAttempt.Triggers); the engine that committed
// it fires them at once (fireTriggersOf, after each recorded batch), and
// every engine's heartbeat fires what is left (an engine that stopped
// between the two), so that a trigger is neither lost nor doubled
// (Store.FireTriggers consumes each end once).

// fireTriggersOf fires the triggers when a recorded batch done stored
// upstream ends.
func (e *Engine) fireTriggersOf(done []models.FinishedAttempt) {
	for _, f := range done {
		if f.Triggers > 0 {
			e.fireTriggers(e.bgCtx)
			return
		}
	}
}

// fireTriggers queues the runs the stored upstream ends call for and
// wakes the claim loop when it queued any.
func (e *Engine) fireTriggers(ctx context.Context) {
	if e.crashed.Load() {
		return
	}
	n, err := e.store.FireTriggers(ctx, e.clock.Now())
	if err != nil {
		if ctx.Err() == nil {
			e.logger.Warn("engine: firing triggers failed", "instance", e.id, "err", err)
		}
		return
	}
	if n > 0 {
		e.logger.Debug("engine: triggered runs queued", "instance", e.id, "runs", n)
		e.wake()
	}
}

// upstreamSet is the set of the jobs other jobs run after, as the last
// heartbeat read it: their attempts' results are recorded without
// lingering for a batch, so that their downstream jobs start at once. A
// stale set only delays such a recording (by at most the linger), never
// loses a trigger. Safe for concurrent use.
type upstreamSet struct {
	ids atomic.Pointer[map[int64]struct{}]
}

// has reports whether job id is an upstream.
func (u *upstreamSet) has(id int64) bool {
	m := u.ids.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[id]
	return ok
}

// refreshUpstreams reads the set of upstream jobs again.
func (e *Engine) refreshUpstreams(ctx context.Context) {
	ids, err := e.store.UpstreamJobs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.logger.Warn("engine: reading the upstream jobs failed", "instance", e.id, "err", err)
		}
		return
	}
	m := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	e.upstreams.ids.Store(&m)
}
