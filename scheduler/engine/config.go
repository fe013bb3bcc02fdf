package engine

import (
	"errors"
	"fmt"
	"time"

	"sked/scheduler/action"
)

// Config tunes an Engine. Zero fields take the defaults listed with them
// (WithDefaults); Validate reports values that cannot work.
type Config struct {
	// InstanceID names this engine in leases and logs. Default:
	// "<hostname>-<pid>-<random>".
	InstanceID string
	// Version is the release this engine runs, recorded with its heartbeat
	// so that a rolling upgrade can tell which releases are alive. Default:
	// empty (unknown).
	Version string
	// MaxWorkers caps the attempts running at once. Default 256 (attempts
	// mostly wait on the network).
	MaxWorkers int
	// LeaseMargin is added to an attempt's timeout to form its lease: how
	// long other engines wait before they declare a silent attempt
	// interrupted. Default 30 s.
	LeaseMargin time.Duration
	// MisfireGrace is how late an occurrence may still start: an occurrence
	// more than this late when it is claimed (the instance was down, the
	// collection disabled) is missed and handled by the job's misfirePolicy.
	// Default 60 s.
	MisfireGrace time.Duration
	// SafetyPoll is the longest the engine sleeps without looking at the
	// database, in case a notification was lost. Default 30 s.
	SafetyPoll time.Duration
	// ErrorBackoff is the first wait after a failing database call; it
	// doubles up to 5 s. Default 250 ms.
	ErrorBackoff time.Duration
	// HeartbeatInterval is how often the engine renews its instance's
	// heartbeat in the database and looks for instances whose heartbeat
	// stopped. Default 5 s.
	HeartbeatInterval time.Duration
	// DeadAfter is how old an instance's latest heartbeat may be before the
	// other instances consider it dead: they record its running attempts
	// Failed ("interrupted") and apply their retry policies, whatever the
	// attempts' timeouts, at most DeadAfter plus HeartbeatInterval after
	// its last heartbeat. It must be at least twice HeartbeatInterval, and
	// longer than any pause of a live instance (a stalled database
	// connection, a suspended VM): a live instance taken for dead sees its
	// running attempts retried elsewhere. Default 20 s.
	DeadAfter time.Duration
	// MaxClockOffset is the largest offset of this instance's clock from
	// the database's (measured at every heartbeat, either way) at which it
	// still starts attempts (SPEC §14.3): above it the instance claims
	// nothing (its attempts in flight finish; it starts again once the
	// offset is back under) and Ready reports the offset. Default 5 s;
	// negative turns the check off (the offset is still measured, shown
	// and logged).
	MaxClockOffset time.Duration
	// ShutdownTimeout is how long Stop lets running attempts finish before
	// it interrupts them, when Stop's context has no earlier deadline.
	// Default 25 s.
	ShutdownTimeout time.Duration
	// ResultBatch caps the attempt results a writer records in one
	// transaction, and those a claim takes from the writers (it may take
	// one writer's batch more: at most twice ResultBatch). Default 256.
	ResultBatch int
	// ResultWriters is how many transactions write results at once (one
	// writer fills its batch at a time). While the claim loop is busy, the
	// writers hand their batches of successes to its claims, which record
	// them in their own transactions (results_ride.go). Default 2.
	ResultWriters int
	// ClaimOverlap is how many claims the engine runs at once during a
	// burst: once the loop's claims in a row have taken every free worker
	// for twice MaxWorkers attempts (more is due), up to ClaimOverlap−1
	// more claims run beside the loop's, every claim taking at most an
	// equal share of the workers (overlap.go). Outside a burst one claim
	// runs at a time, so an idle or lightly loaded engine makes no more
	// transactions. Default 2 (on two cores, the figure that starts the
	// most attempts per second: BENCHMARKS.md); 1 claims one at a time.
	ClaimOverlap int

	// HistoryMaxAge: history entries older than this are deleted. Default
	// 60 days; negative keeps them.
	HistoryMaxAge time.Duration
	// HistoryPerJob: only the newest entries of each job are kept; the
	// others go once their UTC day has closed (an hour after its end),
	// mostly by rewriting the day (models' history_rewrite.go). Default
	// 1,000; negative keeps all.
	HistoryPerJob int
	// FinishedJobMaxAge: completed and faulted jobs are deleted this long
	// after they ended. Default 60 days; negative keeps them.
	FinishedJobMaxAge time.Duration
	// AuditMaxAge: audit log entries older than this are deleted. Default
	// 400 days; negative keeps them.
	AuditMaxAge time.Duration
	// RetentionInterval is how often retention runs. Default 1 h; negative
	// turns retention off.
	RetentionInterval time.Duration

	// NotifyWorkers caps the notifications sent at once (SPEC §13.3), by
	// the engine's own pool, apart from MaxWorkers: a slow channel never
	// delays an attempt. Default 32 (enough for a burst of failures; their
	// tries are recorded in batches); negative turns sending off (the
	// notifications wait for another instance).
	NotifyWorkers int
	// NotifyTries is how many times a notification is tried before it is
	// given up (failed). Default 5.
	NotifyTries int
	// NotifyBackoff is the wait after a notification's first failed try;
	// it doubles after each (with the defaults: 4, 8, 16 and 32 minutes, the
	// fifth try about an hour after the first). Default 4 min.
	NotifyBackoff time.Duration
	// NotificationMaxAge: delivered and failed notifications (the delivery
	// log) are deleted this long after they finished. Default
	// HistoryMaxAge; negative keeps them.
	NotificationMaxAge time.Duration

	// Action configures the executors (outbound targets allowed, Azure
	// endpoints). Used when Deps.Executor is nil, and by the notification
	// sender when Deps.Sender is nil.
	Action action.Config
}

// Defaults.
const (
	DefaultMaxWorkers        = 256
	DefaultLeaseMargin       = 30 * time.Second
	DefaultMisfireGrace      = 60 * time.Second
	DefaultSafetyPoll        = 30 * time.Second
	DefaultErrorBackoff      = 250 * time.Millisecond
	DefaultHeartbeatInterval = 5 * time.Second
	DefaultDeadAfter         = 20 * time.Second
	DefaultMaxClockOffset    = 5 * time.Second
	DefaultShutdownTimeout   = 25 * time.Second
	DefaultResultBatch       = 256
	DefaultResultWriters     = 2
	DefaultClaimOverlap      = 2
	DefaultHistoryMaxAge     = 60 * 24 * time.Hour
	DefaultHistoryPerJob     = 1000
	DefaultFinishedJobMaxAge = 60 * 24 * time.Hour
	DefaultAuditMaxAge       = 400 * 24 * time.Hour
	DefaultRetentionInterval = time.Hour
	DefaultNotifyWorkers     = 32
	DefaultNotifyTries       = 5
	DefaultNotifyBackoff     = 4 * time.Minute
)

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.MaxWorkers == 0 {
		c.MaxWorkers = DefaultMaxWorkers
	}
	set(&c.LeaseMargin, DefaultLeaseMargin)
	set(&c.MisfireGrace, DefaultMisfireGrace)
	set(&c.SafetyPoll, DefaultSafetyPoll)
	set(&c.ErrorBackoff, DefaultErrorBackoff)
	set(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	set(&c.DeadAfter, DefaultDeadAfter)
	set(&c.MaxClockOffset, DefaultMaxClockOffset)
	set(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.ResultBatch == 0 {
		c.ResultBatch = DefaultResultBatch
	}
	if c.ResultWriters == 0 {
		c.ResultWriters = DefaultResultWriters
	}
	if c.ClaimOverlap == 0 {
		c.ClaimOverlap = DefaultClaimOverlap
	}
	set(&c.HistoryMaxAge, DefaultHistoryMaxAge)
	if c.HistoryPerJob == 0 {
		c.HistoryPerJob = DefaultHistoryPerJob
	}
	set(&c.FinishedJobMaxAge, DefaultFinishedJobMaxAge)
	set(&c.AuditMaxAge, DefaultAuditMaxAge)
	set(&c.RetentionInterval, DefaultRetentionInterval)
	if c.NotifyWorkers == 0 {
		c.NotifyWorkers = DefaultNotifyWorkers
	}
	if c.NotifyTries == 0 {
		c.NotifyTries = DefaultNotifyTries
	}
	set(&c.NotifyBackoff, DefaultNotifyBackoff)
	set(&c.NotificationMaxAge, c.HistoryMaxAge)
	return c
}

// Validate reports every setting of c (after WithDefaults) that cannot
// work, joined.
func (c Config) Validate() error {
	var errs []error
	if c.MaxWorkers < 1 || c.MaxWorkers > 100000 {
		errs = append(errs, fmt.Errorf("engine: max workers %d is not between 1 and 100000", c.MaxWorkers))
	}
	positive := map[string]time.Duration{
		"lease margin": c.LeaseMargin, "misfire grace": c.MisfireGrace, "safety poll": c.SafetyPoll,
		"error backoff": c.ErrorBackoff, "shutdown timeout": c.ShutdownTimeout,
		"heartbeat interval": c.HeartbeatInterval, "dead after": c.DeadAfter,
	}
	for _, name := range []string{"lease margin", "misfire grace", "safety poll", "error backoff", "shutdown timeout",
		"heartbeat interval", "dead after"} {
		if positive[name] <= 0 {
			errs = append(errs, fmt.Errorf("engine: %s %s must be positive", name, positive[name]))
		}
	}
	if c.HeartbeatInterval > 0 && c.DeadAfter < 2*c.HeartbeatInterval {
		errs = append(errs, fmt.Errorf("engine: dead after %s must be at least twice the heartbeat interval %s",
			c.DeadAfter, c.HeartbeatInterval))
	}
	if c.ResultBatch < 1 {
		errs = append(errs, fmt.Errorf("engine: result batch %d must be at least 1", c.ResultBatch))
	}
	if c.ResultWriters < 1 || c.ResultWriters > 64 {
		errs = append(errs, fmt.Errorf("engine: result writers %d is not between 1 and 64", c.ResultWriters))
	}
	if c.ClaimOverlap < 1 || c.ClaimOverlap > 16 {
		errs = append(errs, fmt.Errorf("engine: claim overlap %d is not between 1 and 16", c.ClaimOverlap))
	}
	if c.NotifyWorkers > 1000 {
		errs = append(errs, fmt.Errorf("engine: notify workers %d is over 1000", c.NotifyWorkers))
	}
	if c.NotifyTries < 1 || c.NotifyTries > 20 {
		errs = append(errs, fmt.Errorf("engine: notify tries %d is not between 1 and 20", c.NotifyTries))
	}
	if c.NotifyBackoff <= 0 {
		errs = append(errs, fmt.Errorf("engine: notify backoff %s must be positive", c.NotifyBackoff))
	}
	return errors.Join(errs...)
}

// outbox returns the settings of the notification outbox of the engine
// named owner (c after WithDefaults, sending on); the engine adds the
// collaborators.
func (c Config) outbox(owner string) outboxConfig {
	return outboxConfig{Owner: owner, Workers: c.NotifyWorkers, Tries: c.NotifyTries, Backoff: c.NotifyBackoff,
		Lease: action.NotifyTimeout + c.LeaseMargin, QueueWait: c.LeaseMargin / 2,
		SafetyPoll: c.SafetyPoll, ErrorBackoff: c.ErrorBackoff, Action: c.Action}
}
