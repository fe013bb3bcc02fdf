// Package scheduler is Sked's execution engine (SPEC §4): it runs the due
// occurrences of jobs, exactly once across every instance that shares the
// database, with retries, error actions, history, missed-occurrence and
// overlap handling, crash recovery and retention.
//
// # How it works
//
// All state lives in PostgreSQL (see models.Store.ClaimDue and
// FinishAttempts). An engine loops: it claims due work in one short
// transaction (FOR UPDATE SKIP LOCKED; the claimed occurrence's job is
// advanced to its next occurrence and its first attempt inserted as a
// running row leased to this engine; the unique key (job, expected time,
// action, attempt) makes a second start impossible), executes the attempts
// outside any transaction on a bounded pool of workers, and records each
// result in another short transaction (batched) together with the history
// entry, the counters and, on failure, the next attempt (a retry, or the
// error action) as a pending row. Between claims it sleeps until the
// earliest due time, a notification (LISTEN/NOTIFY on models.NotifyChannel:
// jobs created, changed, enabled, run now; collections enabled), or the
// safety poll, whichever comes first; it never busy-polls.
//
// Every attempt the engine schedules wakes an engine at its due time: after
// writing a retry (due retryInterval after the failed attempt ended, or
// doubling with retryType exponential) or an error action (due at once),
// the writing engine arms its own timer for the earliest of them, and the
// notification that FinishAttempts sends carries that due time, for which
// the other engines arm theirs (without querying the database at once).
// The safety poll is only a net for lost notifications.
//
// Every engine renews a heartbeat (models.Store.Heartbeat) every
// Config.HeartbeatInterval. An attempt whose engine dies is recorded Failed
// ("interrupted") by another engine, which applies the retry policy, at
// most Config.DeadAfter plus Config.HeartbeatInterval after the dead
// engine's last heartbeat (25 s with the defaults), or when its lease
// expires (the action's timeout plus Config.LeaseMargin) if that comes
// first (an engine that does not heartbeat, e.g. an older version). A live
// engine keeps its attempts for as long as their timeouts allow.
//
// # Lifecycle
//
// New builds an engine; Start runs it until Stop. Stop stops claiming, lets
// running attempts finish until its deadline, interrupts and releases the
// rest (they become pending again with the same attempt number, due at
// once, so another instance runs them; no history entry is written for the
// interrupted run, and the target may see that attempt twice, with the same
// Idempotency-Key and execution tag), writes every result, deletes its
// heartbeat row (unless it still holds running attempts: the other
// engines then recover them as from a dead engine) and returns. The other methods (RunNow,
// EnableJob, DisableJob) may be called at any time, from any goroutine.
//
// # Deleted or disabled jobs
//
// Deleting a job while one of its attempts runs lets the request finish,
// but nothing is recorded: the attempt, its history and its retries went
// with the job. Disabling a job while an attempt runs lets it finish and
// records it (history and counters), but no retry or error action follows:
// a disabled job runs nothing, and disabling drops its pending attempts.
package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
)

// Store is what the engine needs from the database; *models.Store
// satisfies it.
type Store interface {
	ClaimDue(ctx context.Context, req models.ClaimRequest) ([]models.ClaimedAttempt, error)
	FinishAttempts(ctx context.Context, outcomes []models.AttemptOutcome) ([]models.FinishedAttempt, error)
	NextWake(ctx context.Context) (time.Time, bool, error)
	DueBacklog(ctx context.Context, now time.Time) (int64, error)
	RunNow(ctx context.Context, jobID int64, now time.Time) (int64, error)
	SetJobEnabled(ctx context.Context, jobID int64, enabled bool, now time.Time) error
	Prune(ctx context.Context, now time.Time, r models.Retention) (models.PruneStats, error)
	ReleaseAttempts(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error)
	Heartbeat(ctx context.Context, hb models.Heartbeat) (int64, error)
	RemoveInstance(ctx context.Context, id string) (bool, error)
}

// Notifier delivers wake-ups from the database; *models.Listener satisfies
// it. Run is called by Start and must return when its context ends. C
// delivers "look again now" wake-ups; Due delivers the due times of
// attempts stored by other engines, for which the engine arms a timer.
type Notifier interface {
	Run(ctx context.Context) error
	C() <-chan struct{}
	Due() <-chan time.Time
}

// Deps are the engine's collaborators. Only Store is required.
type Deps struct {
	// Store is the database.
	Store Store
	// Notifier wakes the engine when jobs change and when other engines
	// store attempts; nil means wake-ups come only from the timer and the
	// safety poll (and from this engine's own RunNow/EnableJob calls and
	// writes).
	Notifier Notifier
	// Clock defaults to SystemClock.
	Clock Clock
	// Executor runs actions; nil means action.NewDispatcher(Config.Action).
	Executor action.Executor
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics defaults to unregistered metrics.
	Metrics *Metrics
	// Calendars gives the calendars of a job's workspace (SPEC §13.6); nil
	// means jobs that exclude calendars cannot be scheduled (each is logged).
	Calendars CalendarSource
}

// Engine runs jobs. See the package documentation.
type Engine struct {
	cfg     Config
	id      string
	store   Store
	notify  Notifier
	clock   Clock
	exec    action.Executor
	httpEx  *action.HTTPExecutor
	logger  *slog.Logger
	metrics *Metrics
	cache   *jobCache
	// calendars gives the calendars of jobs that exclude some; may be nil.
	calendars CalendarSource

	sem       chan struct{}
	minBatch  int
	slotFreed chan struct{}
	poke      chan struct{}
	// alarm is the earliest due time of attempts this engine wrote or was
	// notified of, until a claim looks at it.
	alarm alarm
	// beating is closed after the first successful heartbeat: the claim
	// loop starts then.
	beating   chan struct{}
	firstBeat sync.Once
	results   chan models.AttemptOutcome
	inflight  sync.WaitGroup

	mu           sync.Mutex
	started      bool
	stopped      bool
	stopClaiming chan struct{}
	execCtx      context.Context
	execCancel   context.CancelFunc
	writeCtx     context.Context
	writeCancel  context.CancelFunc
	bgCtx        context.Context
	bgCancel     context.CancelFunc
	loopDone     chan struct{}
	writers      sync.WaitGroup
	bg           sync.WaitGroup

	// released collects the attempts interrupted by Stop.
	releaseMu sync.Mutex
	released  []int64

	// crashed drops every result instead of writing it (tests: a crash).
	crashed atomic.Bool
	// onFinish, when set before Start, sees every written batch (tests).
	onFinish func([]models.AttemptOutcome, []models.FinishedAttempt)
}

// New returns an engine with cfg (zero fields take their defaults) and
// deps. It does not start it.
func New(cfg Config, deps Deps) (*Engine, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil {
		return nil, errors.New("engine: a store is required")
	}
	e := &Engine{cfg: cfg, store: deps.Store, notify: deps.Notifier, clock: deps.Clock, exec: deps.Executor,
		logger: deps.Logger, metrics: deps.Metrics, cache: newJobCache(jobCacheSize), calendars: deps.Calendars}
	if e.clock == nil {
		e.clock = SystemClock{}
	}
	if e.logger == nil {
		e.logger = slog.Default()
	}
	if e.metrics == nil {
		e.metrics = NewMetrics(nil)
	}
	if e.exec == nil {
		d, err := action.NewDispatcher(cfg.Action)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		d.HTTP.Observe = e.metrics.observeHTTP
		e.exec, e.httpEx = d, d.HTTP
	}
	e.metrics.setBacklog(e.store, e.clock)
	e.id = cfg.InstanceID
	if e.id == "" {
		e.id = defaultInstanceID()
	}
	e.sem = make(chan struct{}, cfg.MaxWorkers)
	e.minBatch = max(1, cfg.MaxWorkers/8)
	e.slotFreed = make(chan struct{}, 1)
	e.poke = make(chan struct{}, 1)
	e.alarm.c = make(chan struct{}, 1)
	e.beating = make(chan struct{})
	e.results = make(chan models.AttemptOutcome, 2*cfg.MaxWorkers)
	e.stopClaiming = make(chan struct{})
	e.loopDone = make(chan struct{})
	e.execCtx, e.execCancel = context.WithCancel(context.Background())
	e.writeCtx, e.writeCancel = context.WithCancel(context.Background())
	e.bgCtx, e.bgCancel = context.WithCancel(context.Background())
	return e, nil
}

func defaultInstanceID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// InstanceID returns the name this engine holds its leases under.
func (e *Engine) InstanceID() string { return e.id }

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
	if e.cfg.RetentionInterval > 0 {
		e.bg.Go(e.retention)
	}
	for range e.cfg.ResultWriters {
		e.writers.Go(e.writer)
	}
	go e.loop()
	e.logger.Info("engine started", "instance", e.id, "max_workers", e.cfg.MaxWorkers)
	return nil
}

// Stop shuts the engine down: it stops claiming, waits for running
// attempts until ctx's deadline or Config.ShutdownTimeout (the earlier),
// interrupts and releases the remaining ones (see the package
// documentation), writes every result and stops its goroutines. It returns once all of that is done; later calls return nil
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

// RunNow queues an immediate extra occurrence of job jobID (SPEC §7
// "run"): it starts within moments on whichever instance claims it. The
// schedule is unchanged, the run does not count against recurrence.count,
// and it starts even when the job's concurrency is forbid and an
// occurrence is running. Its Idempotency-Key carries the request's time
// (microseconds). A run requested while the job's collection is disabled
// waits for the collection to be enabled. It returns the attempt id (the execution tag), or an
// error wrapping models.ErrNotFound, models.ErrJobNotEnabled or
// models.ErrJobFinished.
func (e *Engine) RunNow(ctx context.Context, jobID int64) (int64, error) {
	id, err := e.store.RunNow(ctx, jobID, e.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("engine: run now: %w", err)
	}
	e.wake()
	return id, nil
}

// EnableJob enables job jobID; its next occurrence is computed from now
// (occurrences missed while it was disabled are not run). It returns an
// error wrapping models.ErrNotFound or models.ErrJobFinished.
func (e *Engine) EnableJob(ctx context.Context, jobID int64) error {
	if err := e.store.SetJobEnabled(ctx, jobID, true, e.clock.Now()); err != nil {
		return fmt.Errorf("engine: enable job: %w", err)
	}
	e.wake()
	return nil
}

// DisableJob disables job jobID: nothing of it runs any more; an attempt
// already running finishes and is recorded, without retry. It returns an
// error wrapping models.ErrNotFound or models.ErrJobFinished.
func (e *Engine) DisableJob(ctx context.Context, jobID int64) error {
	if err := e.store.SetJobEnabled(ctx, jobID, false, e.clock.Now()); err != nil {
		return fmt.Errorf("engine: disable job: %w", err)
	}
	return nil
}

// wake makes the loop look at the database again.
func (e *Engine) wake() {
	select {
	case e.poke <- struct{}{}:
	default:
	}
}

// idleRecheck is the wait before claiming again when something is due but
// nothing could be claimed (its rows are locked by another instance for a
// moment).
const idleRecheck = 50 * time.Millisecond

// loop claims and dispatches until stopClaiming is closed.
func (e *Engine) loop() {
	defer close(e.loopDone)
	select {
	case <-e.beating:
	case <-e.stopClaiming:
		return
	}
	backoff := e.cfg.ErrorBackoff
	var notifyC <-chan struct{}
	if e.notify != nil {
		notifyC = e.notify.C()
	}
	for {
		select {
		case <-e.stopClaiming:
			return
		default:
		}
		free := cap(e.sem) - len(e.sem)
		if free < e.minBatch {
			// Busy: let a few workers finish rather than claim one at a time.
			if !e.waitSlots(e.minBatch, slotWait) {
				return
			}
			free = cap(e.sem) - len(e.sem)
		}
		started, claimed, err := e.claim(free)
		if err != nil {
			e.logger.Warn("engine: claim failed", "err", err, "retry_in", backoff.String())
			if !e.sleep(backoff, notifyC, nil) {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = e.cfg.ErrorBackoff
		if free > 0 && started == free {
			continue // there may be more due
		}
		delay := e.cfg.SafetyPoll
		at, ok, err := e.store.NextWake(e.bgCtx)
		switch {
		case err != nil:
			e.logger.Warn("engine: next wake-up time", "err", err)
			delay = e.cfg.ErrorBackoff
		case ok:
			delay = min(delay, at.Sub(e.clock.Now()))
		}
		if at, ok := e.alarm.next(); ok {
			if !at.After(e.clock.Now()) && free > started {
				continue // stored while this claim ran: claim again at once
			}
			delay = min(delay, at.Sub(e.clock.Now()))
		}
		var slotC chan struct{}
		if delay <= 0 {
			switch {
			case free-started <= 0:
				// Due work waits for a free worker.
				slotC, delay = e.slotFreed, e.cfg.SafetyPoll
			case claimed == 0:
				delay = idleRecheck
			default:
				continue
			}
		}
		if !e.sleep(delay, notifyC, slotC) {
			return
		}
	}
}

// slotWait bounds how long a busy loop waits for workers to free up before
// it claims anyway.
const slotWait = 10 * time.Millisecond

// waitSlots waits until at least n workers are free or d has passed; it
// reports false when the engine stops claiming.
func (e *Engine) waitSlots(n int, d time.Duration) bool {
	t := e.clock.NewTimer(d)
	defer t.Stop()
	for cap(e.sem)-len(e.sem) < n {
		select {
		case <-e.slotFreed:
		case <-t.C():
			return true
		case <-e.stopClaiming:
			return false
		}
	}
	return true
}

// sleep waits for delay, a notification, a poke, a slot or the alarm
// (when armed earlier than the end of the wait: the timer is then moved to
// it); it reports false when the engine stops claiming.
func (e *Engine) sleep(delay time.Duration, notifyC <-chan struct{}, slotC <-chan struct{}) bool {
	until := e.clock.Now().Add(delay)
	t := e.clock.NewTimer(delay)
	defer func() { t.Stop() }()
	for {
		select {
		case <-t.C():
		case <-notifyC:
		case <-e.poke:
		case <-slotC:
		case <-e.stopClaiming:
			return false
		case <-e.alarm.c:
			at, ok := e.alarm.next()
			if !ok || !at.Before(until) {
				continue
			}
			now := e.clock.Now()
			if !at.After(now) {
				return true
			}
			t.Stop()
			t, until = e.clock.NewTimer(at.Sub(now)), at
			continue
		}
		return true
	}
}

// claim runs one claim with up to free attempts and dispatches what it
// got. It returns how many attempts it started and how many rows it got.
func (e *Engine) claim(free int) (started, claimed int, err error) {
	now := e.clock.Now()
	// This claim covers everything due by now (what it leaves, NextWake
	// returns).
	e.alarm.reached(now)
	t0 := time.Now()
	got, err := e.store.ClaimDue(e.bgCtx, e.claimRequest(now, free))
	e.metrics.claim.Observe(time.Since(t0).Seconds())
	if err != nil {
		return 0, 0, err
	}
	var expired []models.AttemptOutcome
	for i := range got {
		a := got[i]
		if a.Expired {
			e.logger.Warn("engine: attempt interrupted (its instance stopped answering)", "job_id", a.JobID, "attempt_id", a.ID)
			expired = append(expired, e.interrupted(&a, now))
			continue
		}
		started++
		e.sem <- struct{}{}
		e.inflight.Add(1)
		go func() {
			defer func() {
				<-e.sem
				e.inflight.Done()
				select {
				case e.slotFreed <- struct{}{}:
				default:
				}
			}()
			o := e.execute(e.execCtx, &a)
			if e.crashed.Load() {
				return
			}
			if !o.Succeeded && e.execCtx.Err() != nil {
				// Interrupted by Stop: released, not failed.
				e.releaseMu.Lock()
				e.released = append(e.released, a.ID)
				e.releaseMu.Unlock()
				return
			}
			e.results <- o
		}()
	}
	if len(expired) > 0 {
		// Recorded here, not by the writer, so that the next claim does not
		// report them again.
		done, err := e.store.FinishAttempts(e.bgCtx, expired)
		if err != nil {
			return started, len(got), fmt.Errorf("record interrupted attempts: %w", err)
		}
		e.observe(expired, done)
	}
	return started, len(got), nil
}

func (e *Engine) claimRequest(now time.Time, limit int) models.ClaimRequest {
	return models.ClaimRequest{
		Now: now, Owner: e.id, Limit: limit,
		Plan:  func(j *models.EngineJob) *models.JobPlan { return e.plan(j, now) },
		Lease: e.leaseFor,
	}
}

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

// specsFor returns the spec of action and the main action's spec.
func specsFor(cj *compiledJob, act string) (spec, main *jobdef.Action) {
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
	cj, err := e.cache.get(a.JobID, a.Definition, a.Secrets, nil, jobCalendars{})
	var res action.Result
	var spec, main *jobdef.Action
	switch {
	case err != nil:
		res.Message = "the job definition cannot be read: " + err.Error()
	default:
		spec, main = specsFor(cj, a.Action)
		if spec == nil {
			res.Message = "the job has no " + a.Action
			break
		}
		res = e.exec.Execute(ctx, &action.Attempt{
			JobID: a.JobID, AttemptID: a.ID, ExpectedTime: a.ExpectedTime, Spec: spec, Timeout: spec.Timeout,
		})
	}
	o := outcome(a, spec, main, res, e.clock.Now())
	o.Owner = e.id
	return o
}

// writer records results in batches until results is closed and drained.
// Config.ResultWriters of them run at once.
func (e *Engine) writer() {
	batch := make([]models.AttemptOutcome, 0, e.cfg.ResultBatch)
	for first := range e.results {
		batch = append(batch[:0], first)
	fill:
		for len(batch) < e.cfg.ResultBatch {
			select {
			case o, ok := <-e.results:
				if !ok {
					break fill
				}
				batch = append(batch, o)
			default:
				break fill
			}
		}
		e.write(batch)
	}
}

// write records batch, retrying while the database is unavailable, until
// it succeeds or writing is cancelled (the results are then lost here, and
// the attempts' leases expire: another instance records them interrupted).
func (e *Engine) write(batch []models.AttemptOutcome) {
	backoff := e.cfg.ErrorBackoff
	for {
		if e.crashed.Load() {
			return
		}
		done, err := e.store.FinishAttempts(e.writeCtx, batch)
		if err == nil {
			e.observe(batch, done)
			return
		}
		if e.writeCtx.Err() != nil {
			e.logger.Error("engine: results not recorded", "count", len(batch), "err", err)
			return
		}
		e.logger.Warn("engine: recording results failed", "count", len(batch), "err", err, "retry_in", backoff.String())
		t := e.clock.NewTimer(backoff)
		select {
		case <-t.C():
		case <-e.writeCtx.Done():
		}
		t.Stop()
		backoff = min(2*backoff, 5*time.Second)
	}
}

// observe arms the alarm for the attempts that a written batch stored,
// and updates the metrics and logs.
func (e *Engine) observe(batch []models.AttemptOutcome, done []models.FinishedAttempt) {
	for i, f := range done {
		if f.NextStored && batch[i].Next != nil {
			e.alarm.set(batch[i].Next.DueAt)
		}
	}
	for i, f := range done {
		if !f.Recorded {
			e.logger.Info("engine: result not recorded (attempt no longer ours or job deleted)", "attempt_id", f.AttemptID)
			continue
		}
		status := models.StatusCompleted
		if !batch[i].Succeeded {
			status = models.StatusFailed
		}
		e.metrics.attempts.WithLabelValues(status, f.Action).Inc()
		if f.JobEnded {
			e.logger.Info("engine: job ended", "job_id", f.JobID)
		}
	}
	if e.onFinish != nil {
		e.onFinish(batch, done)
	}
}

// retention prunes history, finished jobs and attempts every
// RetentionInterval, starting one minute after Start.
func (e *Engine) retention() {
	wait := min(time.Minute, e.cfg.RetentionInterval)
	for {
		t := e.clock.NewTimer(wait)
		select {
		case <-e.bgCtx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		wait = e.cfg.RetentionInterval
		if _, err := e.prune(e.bgCtx); err != nil && e.bgCtx.Err() == nil {
			e.logger.Warn("engine: retention failed", "err", err)
		}
	}
}

// prune applies the retention settings once.
func (e *Engine) prune(ctx context.Context) (models.PruneStats, error) {
	r := models.Retention{
		HistoryMaxAge: e.cfg.HistoryMaxAge, HistoryPerJob: e.cfg.HistoryPerJob,
		FinishedJobMaxAge: e.cfg.FinishedJobMaxAge, AttemptMaxAge: e.cfg.AttemptMaxAge,
		InstanceMaxAge: deadInstanceMaxAge,
	}
	st, err := e.store.Prune(ctx, e.clock.Now(), r)
	if err != nil {
		return st, err
	}
	if st.History+st.Jobs+st.Attempts+st.Instances > 0 {
		e.logger.Info("engine: retention", "history_deleted", st.History, "jobs_deleted", st.Jobs, "attempts_deleted", st.Attempts,
			"instances_deleted", st.Instances)
	}
	return st, nil
}

// runDue claims everything due at the clock's now (up to MaxWorkers
// attempts), runs it, waits and records the results. It returns how many
// rows the claim returned. For tests that drive the engine step by step
// with a fake clock, without Start.
func (e *Engine) runDue(ctx context.Context) (int, error) {
	now := e.clock.Now()
	got, err := e.store.ClaimDue(ctx, e.claimRequest(now, e.cfg.MaxWorkers))
	if err != nil {
		return 0, err
	}
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
