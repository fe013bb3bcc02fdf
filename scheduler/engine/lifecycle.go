package engine

import (
	"context"
	"errors"
	"time"
)

// Start runs the engine in the background until Stop. It may be called
// once.
func (e *Engine) Start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return errors.New("engine: already started")
	}
	e.started = true
	if e.notify != nil {
		e.bg.Go(func() {
			if err := e.notify.Run(e.bgCtx); err != nil {
				e.logger.Error("engine: notifications stopped", "err", err)
			}
		})
		e.bg.Go(e.forwardDue)
	}
	e.bg.Go(e.heartbeat)
	e.bg.Go(e.historyPartitions)
	e.bg.Go(e.watchMonitors)
	e.bg.Go(e.watchDeadlines)
	if e.cfg.RetentionInterval > 0 {
		e.bg.Go(e.retention)
	}
	for range e.cfg.ResultWriters {
		e.writers.Go(e.writer)
	}
	if e.outbox != nil {
		go e.outbox.run()
	}
	e.loops.Go(e.loop)
	for range e.cfg.ClaimOverlap - 1 {
		e.loops.Go(e.overlapLoop)
	}
	go func() { e.loops.Wait(); close(e.loopDone) }()
	e.logger.Info("engine started", "instance", e.id, "max_workers", e.cfg.MaxWorkers, "claim_overlap", e.cfg.ClaimOverlap)
	return nil
}

// Stop shuts the engine down: it stops claiming, waits for running
// attempts until ctx's deadline or Config.ShutdownTimeout (the earlier),
// interrupts and releases the remaining ones (see the package
// documentation), writes every result, stops sending notifications (the
// sends in flight finish by the same deadline, else they are put back for
// another instance) and stops its goroutines. It returns once all of that is done; later calls return nil
// at once.
func (e *Engine) Stop(ctx context.Context) error {
	e.mu.Lock()
	if !e.started || e.stopped {
		e.stopped = true
		e.mu.Unlock()
		return nil
	}
	e.stopped = true
	e.mu.Unlock()

	close(e.stopClaiming)
	<-e.loopDone
	ctx, cancel := context.WithTimeout(ctx, e.cfg.ShutdownTimeout)
	defer cancel()
	idle := make(chan struct{})
	go func() { e.inflight.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
		e.logger.Warn("engine: interrupting the attempts still running")
		e.execCancel()
		<-idle
		e.release()
	}
	close(e.results)
	writersDone := make(chan struct{})
	go func() { e.writers.Wait(); close(writersDone) }()
	select {
	case <-writersDone:
	case <-ctx.Done():
		// Give the last results a moment more, then drop them: their
		// leases will expire and another instance records them.
		t := time.NewTimer(5 * time.Second)
		select {
		case <-writersDone:
		case <-t.C:
			e.writeCancel()
			<-writersDone
		}
		t.Stop()
	}
	// The notifications last: the results just written may have stored
	// some; those not sent by the deadline wait for another instance.
	if e.outbox != nil {
		e.outbox.shutdown(ctx)
	}
	e.execCancel()
	e.writeCancel()
	e.bgCancel()
	e.bg.Wait()
	e.removeInstance()
	if e.httpEx != nil {
		e.httpEx.CloseIdleConnections()
	}
	e.logger.Info("engine stopped", "instance", e.id)
	return nil
}

// removeInstance deletes this engine's heartbeat row after a graceful
// stop. A row that stays (the engine still holds running attempts, or the
// database is unavailable) stops beating: the other engines recover those
// attempts as from a dead engine, and retention deletes the row later.
func (e *Engine) removeInstance() {
	if e.crashed.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gone, err := e.store.RemoveInstance(ctx, e.id)
	switch {
	case err != nil:
		e.logger.Warn("engine: removing the heartbeat row failed", "instance", e.id, "err", err)
	case !gone:
		e.logger.Warn("engine: heartbeat row kept: attempts still leased to this instance will be recovered by the others", "instance", e.id)
	}
}

// release gives the attempts interrupted by Stop back to the database, so
// that another instance runs them at once. When that fails their leases
// expire and they are recorded interrupted (as after a crash).
func (e *Engine) release() {
	e.releaseMu.Lock()
	ids := e.released
	e.released = nil
	e.releaseMu.Unlock()
	if len(ids) == 0 || e.crashed.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := e.store.ReleaseAttempts(ctx, e.id, ids, e.clock.Now())
	if err != nil {
		e.logger.Error("engine: releasing interrupted attempts failed; their leases will expire", "count", len(ids), "err", err)
		return
	}
	e.logger.Info("engine: released interrupted attempts", "count", n)
}
