// Package engine is Sked's execution engine (SPEC §4): it runs the due
// occurrences of jobs, exactly once across every instance that shares the
// database, with retries, error actions, history, missed-occurrence and
// overlap handling, crash recovery and retention.
//
// # How it works
//
// All state lives in PostgreSQL (see models.Store.Claim and
// FinishAttempts). An engine loops: it claims due work in one short
// transaction (FOR UPDATE SKIP LOCKED; the claimed occurrence's job is
// advanced to its next occurrence and its first attempt inserted as a
// running row leased to this engine; the unique key (job, expected time,
// action, attempt) makes a second start impossible), executes the attempts
// outside any transaction on a bounded pool of workers, and records each
// result in another short transaction (batched) together with the history
// entry, the counters and, on failure, the next attempt (a retry, or the
// error action) as a pending row. Workers are goroutines reused from
// attempt to attempt (workers.go), at most Config.MaxWorkers attempts at
// once. During a burst (claims that keep taking every free worker) up to
// Config.ClaimOverlap claims run at once, each with a share of the
// workers (overlap.go, slots.go). Between claims it sleeps until the
// earliest due time, a notification (LISTEN/NOTIFY on models.NotifyChannel:
// jobs created, changed, enabled, run now; collections enabled), or the
// safety poll, whichever comes first; it never busy-polls.
//
// What is due next for a job, and what to record when it is (a run, a
// Postponed entry for missed or overlapping occurrences, the job's end), is
// decided by the pure planner, package plan, from the job's rule, its
// engine state, its policies and the engine's clock: the store only writes
// what it decided (the database's now() decides no due time; it judges
// only leases and heartbeats, see clockoffset.go). The API's
// nextExecutionTime and the pages show plan.Upcoming.
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
// Config.HeartbeatInterval, and measures there its clock's offset from the
// database's (clockoffset.go: the due clock, Config.MaxClockOffset, Ready).
// Heartbeats and leases are judged by the database's clock. An attempt
// whose engine dies is recorded Failed
// ("interrupted") by another engine, which applies the retry policy, at
// most Config.DeadAfter plus Config.HeartbeatInterval after the dead
// engine's last heartbeat (25 s with the defaults), or when its lease
// expires (the action's timeout plus Config.LeaseMargin) if that comes
// first (an engine that does not heartbeat, e.g. an older version). A live
// engine keeps its attempts for as long as their timeouts allow.
//
// # Lifecycle
//
// New builds an engine; Start runs it until Stop. It starts attempts once
// its first heartbeat is written, and not while Ready reports a reason.
// Stop stops claiming, lets
// running attempts finish until its deadline, interrupts and releases the
// rest (they become pending again with the same attempt number, due at
// once, so another instance runs them; no history entry is written for the
// interrupted run, and the target may see that attempt twice, with the same
// Idempotency-Key and execution tag), writes every result, deletes its
// heartbeat row (unless it still holds running attempts: the other
// engines then recover them as from a dead engine) and returns. Wake,
// InstanceID, Ready and ClockOffset may be called at any time, from any
// goroutine.
//
// The engine writes no jobs: every change of a job (created, changed,
// enabled, disabled, run now) goes through the write service,
// scheduler/catalog, which queues a run now in the database and then
// calls Wake (catalog.Runner). The engine reaches the database only
// through Store (store.go), which lists every operation it uses.
//
// # Notifications
//
// The alert rules of a workspace (SPEC §13.3) are matched by the store in
// the transaction that writes what causes an event, and each match is
// stored there as a notification row: FinishAttempts (attemptFailed,
// occurrenceFaulted, recovered, consecutiveFailures from the job's
// consecutive_faults, jobCompleted, jobFaulted) and Claim (missed for a
// Postponed entry, the end of a job); a rule with minInterval counts the
// events inside its window into one digest (models/engine_throttle.go).
// The engine's outbox (outbox.go: its own outboxConfig, nothing of the
// Engine's) sends them with its own pool of
// Config.NotifyWorkers, apart from the attempts' workers, claims them with
// a lease like attempts (exactly once across instances), records every try
// in the delivery log, and retries with exponential backoff
// (Config.NotifyTries, Config.NotifyBackoff). It wakes on the database's
// notification (models.NotifySendPayload), on its own writes, at the next
// due try and at the safety poll. Start starts it; Stop stops it after the
// result writers.
//
// # Heartbeat monitors
//
// Every engine also evaluates the workspaces' heartbeat monitors (SPEC
// §17.3, monitors.go): one goroutine, started with the heartbeat, sleeps
// until the earliest end of grace of an undecided expected occurrence or
// the deadline of an open start ping (a timer; the claim loop's
// notifications and Wake poke it, and the safety poll bounds it), then
// decides what is due through the store (DecideMonitor, RaiseSlowRun),
// which makes each decision once across engines and stores its
// notifications in the same transaction. Pings themselves are written by
// the HTTP handlers (models.Store.RecordPing), not by the engine.
//
// # Deleted or disabled jobs
//
// Deleting a job while one of its attempts runs lets the request finish,
// but nothing is recorded: the attempt, its history and its retries went
// with the job. Disabling a job while an attempt runs lets it finish and
// records it (history and counters), but no retry or error action follows:
// a disabled job runs nothing, and disabling drops its pending attempts.
package engine

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
	"sked/scheduler/action"
)

// Notifier delivers wake-ups from the database; *models.Listener satisfies
// it. Its channels may be nil (never ready).
type Notifier interface {
	// Run listens until ctx ends; Start calls it once, in a goroutine of
	// its own.
	Run(ctx context.Context) error
	// C delivers "look again now" wake-ups for the claim loop (jobs
	// created, changed, enabled, run now; collections enabled).
	C() <-chan struct{}
	// Due delivers the due times of attempts stored by other engines, for
	// which the engine arms its timer.
	Due() <-chan time.Time
	// Sends delivers a wake-up for the outbox when a notification was
	// stored.
	Sends() <-chan struct{}
}

// Deps are the engine's collaborators. Only Store is required.
type Deps struct {
	// Store is the database.
	Store Store
	// Notifier wakes the engine when jobs change and when other engines
	// store attempts; nil means wake-ups come only from the timer and the
	// safety poll (and from Wake and this engine's own writes).
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
	// Sender sends notifications to channels (SPEC §13.3); nil means
	// action.NewNotifier(Config.Action).
	Sender Sender
	// JobURL returns the page of a job (an event's "url", from --base-url);
	// nil means events carry no link.
	JobURL func(workspace, resourceGroup, collection, job string) string
	// MonitorURL returns the page of a heartbeat monitor (a monitor
	// event's "url"); nil means its events carry no link.
	MonitorURL func(workspace, monitor string) string
}

// Engine runs jobs. See the package documentation.
type Engine struct {
	cfg Config
	id  string
	// upstreams are the jobs that other jobs run after (triggers.go).
	upstreams upstreamSet
	// schemaVersion is the newest migration this build knows, recorded
	// with each heartbeat.
	schemaVersion int
	store         Store
	notify        Notifier
	// clock is the engine's clock for every due decision, due; own the
	// injected clock (Deps.Clock), which measures the offset from the
	// database and the age of the last heartbeat (clockoffset.go).
	clock   Clock
	own     Clock
	due     *dueClock
	exec    action.Executor
	httpEx  *action.HTTPExecutor
	logger  *slog.Logger
	metrics *Metrics
	cache   *jobCache
	// calendars gives the calendars of jobs that exclude some, memoised
	// per claim; nil without a calendar source.
	calendars *claimCalendars
	// outbox sends the notifications; nil when sending is off
	// (Config.NotifyWorkers negative). Start starts it, Stop stops it.
	outbox *outbox
	// signingCache keeps the signing secrets of HTTP actions per
	// collection.
	signingCache *signingCache

	// sem holds a token per attempt running (capacity MaxWorkers);
	// reserved counts the free slots that claims under way reserved
	// (slots.go), guarded by slotMu.
	sem      chan struct{}
	slotMu   sync.Mutex
	reserved int
	minBatch int
	// slotFreed and overlapFreed receive a token (capacity 1) when a
	// worker ends: the loop waits on the first, the overlap loops on the
	// second, so that neither takes the other's.
	slotFreed    chan struct{}
	overlapFreed chan struct{}
	// work hands a claimed attempt to a waiting worker (workers.go).
	work chan *models.ClaimedAttempt
	// burst wakes the overlap loops when a claim of the loop took every
	// free worker during a burst (overlap.go).
	burst *claimBurst
	poke  chan struct{}
	// monitorPoke wakes watchMonitors (monitors.go).
	monitorPoke chan struct{}
	// deadlines is what watchDeadlines watches (deadlines.go).
	deadlines *deadlineWatch
	// wsCalendars gives the calendars of a workspace for monitors; nil
	// when Deps.Calendars does not.
	wsCalendars WorkspaceCalendarSource
	// alarm is the earliest due time of attempts this engine wrote or was
	// notified of, until a claim looks at it.
	alarm alarm
	// beating is closed after the first successful heartbeat: the claim
	// loop starts then.
	beating   chan struct{}
	firstBeat sync.Once
	// beaten receives a token after every heartbeat, successful or not
	// (the claim loop, held back by claimBlocked, looks again).
	beaten chan struct{}
	// clockMu guards clockState (clockoffset.go).
	clockMu    sync.Mutex
	clockState clockState
	results    chan models.AttemptOutcome
	// ride hands result batches from the writers to the claim loop while
	// it is busy (results_ride.go).
	ride *resultRide
	// filling lets one writer at a time fill a batch (see writer): a
	// token, taken by the writer that fills. A channel rather than a
	// mutex: a writer waiting for it is durably blocked (testing/synctest).
	filling chan struct{}
	// awaiting counts the attempts dispatched whose outcome no writer
	// (nor the loop) has taken from results yet: running, or on their
	// way. Zero: every result is in hand, a batch need not wait.
	awaiting atomic.Int64
	inflight sync.WaitGroup

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
	// loopDone is closed once the loop and the overlap loops returned.
	loopDone chan struct{}
	loops    sync.WaitGroup
	writers  sync.WaitGroup
	bg       sync.WaitGroup

	// released collects the attempts interrupted by Stop.
	releaseMu sync.Mutex
	released  []int64

	// crashed drops every result instead of writing it (tests: a crash).
	crashed atomic.Bool
	// attemptRows is the last heartbeat's OlderLive: while an instance
	// of a release before models.RecordsMigration is alive, claims start
	// attempts as job_attempts rows (models.ClaimRequest.AttemptRows).
	attemptRows atomic.Bool
	// recoveredAll is when a claim last looked for expired leases among
	// all running records (ClaimRequest.RecoverAll; Unix nanoseconds of
	// the engine's clock, 0 before the first claim).
	recoveredAll atomic.Int64
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
	e := &Engine{cfg: cfg, store: deps.Store, notify: deps.Notifier, own: deps.Clock, exec: deps.Executor,
		logger: deps.Logger, metrics: deps.Metrics, cache: newJobCache(jobCacheSize), calendars: newClaimCalendars(deps.Calendars),
		signingCache: &signingCache{src: deps.Store}}
	if e.own == nil {
		e.own = SystemClock{}
	}
	e.due = &dueClock{own: e.own}
	e.clock = e.due
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
	e.metrics.setTargets(e.store)
	e.id = cfg.InstanceID
	if e.id == "" {
		e.id = defaultInstanceID()
	}
	all, err := models.Migrations()
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.schemaVersion = all[len(all)-1].Version
	e.sem = make(chan struct{}, cfg.MaxWorkers)
	e.minBatch = max(1, cfg.MaxWorkers/8)
	e.slotFreed = make(chan struct{}, 1)
	e.overlapFreed = make(chan struct{}, 1)
	e.burst = newClaimBurst()
	e.work = make(chan *models.ClaimedAttempt)
	e.poke = make(chan struct{}, 1)
	e.monitorPoke = make(chan struct{}, 1)
	e.deadlines = newDeadlineWatch()
	e.wsCalendars, _ = deps.Calendars.(WorkspaceCalendarSource)
	e.alarm.c = make(chan struct{}, 1)
	e.beating = make(chan struct{})
	e.beaten = make(chan struct{}, 1)
	e.results = make(chan models.AttemptOutcome, 2*cfg.MaxWorkers)
	e.ride = newResultRide()
	e.filling = make(chan struct{}, 1)
	e.stopClaiming = make(chan struct{})
	e.loopDone = make(chan struct{})
	e.execCtx, e.execCancel = context.WithCancel(context.Background())
	e.writeCtx, e.writeCancel = context.WithCancel(context.Background())
	e.bgCtx, e.bgCancel = context.WithCancel(context.Background())
	if cfg.NotifyWorkers > 0 {
		var sends <-chan struct{}
		if e.notify != nil {
			sends = e.notify.Sends()
		}
		oc := cfg.outbox(e.id)
		oc.Store, oc.Sender, oc.Sends, oc.JobURL, oc.Calendars = e.store, deps.Sender, sends, deps.JobURL, deps.Calendars
		oc.MonitorURL = deps.MonitorURL
		oc.Clock, oc.Logger, oc.Metrics = e.clock, e.logger, e.metrics
		oc.Blocked = e.outboxBlocked
		e.outbox = newOutbox(oc)
	}
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
