package engine

import (
	"context"
	"time"

	"sked/models"
)

// Store is every database operation the engine uses, and nothing else:
// the claim loop, the result writers, the heartbeat, retention, the
// signing of requests and the notification outbox all go through it.
// *models.Store satisfies it (store_test.go asserts it at compile time); a
// test's in-memory store implements the whole of it, answering an error
// or doing the plain thing for what it cannot do. Every method must be
// safe for concurrent use.
type Store interface {
	// Claim runs one claim in one transaction: it records req.Outcomes,
	// schedules the due jobs with req.Plan, starts up to req.Limit due
	// attempts leased to req.Owner (and returns those whose lease
	// expired, marked Expired) and, with req.NextWake, reads the next
	// wake-up.
	Claim(ctx context.Context, req models.ClaimRequest) (models.ClaimResult, error)
	// FinishAttempts records the results of finished attempts (history,
	// counters, next attempts, the jobs' ends, notifications) and reports
	// what became of each, in the order of outcomes.
	FinishAttempts(ctx context.Context, outcomes []models.AttemptOutcome) ([]models.FinishedAttempt, error)
	// NextWake returns the earliest moment at which the engine has
	// something to do (a due job, a pending attempt, an expiring lease),
	// on the engine's clock, which reads now (a lease ends by the
	// database's clock); false when there is none.
	NextWake(ctx context.Context, now time.Time) (time.Time, bool, error)
	// DueBacklog counts the occurrences and attempts due at now and not
	// started (the due-backlog metric).
	DueBacklog(ctx context.Context, now time.Time) (int64, error)
	// TargetGauges returns every limited host's attempts in flight and
	// waiting across the instances (the target metrics).
	TargetGauges(ctx context.Context) ([]models.TargetGauge, error)
	// ReleaseAttempts makes the running attempts ids that owner still
	// holds pending again, due at now, and returns how many it released.
	ReleaseAttempts(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error)
	// Heartbeat records that instance hb.ID is alive now by the
	// database's clock, expires the leases of the running attempts of
	// instances dead by that clock, and returns the database's clock it
	// read (for the offset) and how many it expired.
	Heartbeat(ctx context.Context, hb models.Heartbeat) (models.HeartbeatResult, error)
	// FeedBackfills refills, at now, the slots of the running backfills
	// (and ends the runs of cancelled ones) that no transaction holds:
	// the heartbeat's safety net for what the writes that feed them did
	// not see. It returns how many it looked at.
	FeedBackfills(ctx context.Context, now time.Time) (int, error)
	// FireTriggers queues, at now, the runs of the jobs that run after
	// other jobs whose recorded upstream ends call for one (SPEC §17.1),
	// and returns how many it queued.
	FireTriggers(ctx context.Context, now time.Time) (int, error)
	// UpstreamJobs returns the ids of the jobs that other jobs run after.
	UpstreamJobs(ctx context.Context) ([]int64, error)
	// RemoveInstance deletes instance id's heartbeat row unless it still
	// holds running attempts, and reports whether the row is gone.
	RemoveInstance(ctx context.Context, id string) (bool, error)
	// EnsureHistoryPartitions creates the history's day partitions from
	// now's day through models.HistoryDaysAhead days after it, those
	// missing, and returns how many it created.
	EnsureHistoryPartitions(ctx context.Context, now time.Time) (int, error)
	// Prune deletes, as of now, what the retention settings r say is too
	// old or too much.
	Prune(ctx context.Context, now time.Time, r models.Retention) (models.PruneStats, error)
	// SigningOf returns the opened signing secret of collection
	// collectionID with its updated_at, or an error wrapping
	// models.ErrNotFound when the collection does not sign.
	SigningOf(ctx context.Context, collectionID int64) (*models.Signing, error)
	// ClaimNotifications leases up to p.Limit due notifications to
	// p.Owner, earliest first, counting a try of each.
	ClaimNotifications(ctx context.Context, p models.ClaimParams) ([]models.Notification, error)
	// FinishNotification records the try r of notification id claimed by
	// owner; models.ErrConflict when owner no longer holds it.
	FinishNotification(ctx context.Context, id int64, owner string, r models.DeliveryResult) error
	// FinishNotifications records the tries of notifications claimed by
	// owner in one statement and returns the ids owner no longer held.
	FinishNotifications(ctx context.Context, owner string, tries []models.NotificationTry) ([]int64, error)
	// ReleaseNotifications puts back notifications ids that owner claimed
	// but did not try, due at now, and returns how many it released.
	ReleaseNotifications(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error)
	// NextNotification returns when the next notification is to be sent;
	// false when there is none.
	NextNotification(ctx context.Context) (time.Time, bool, error)
	// ChannelByID returns notification channel id with its secrets
	// opened, or an error wrapping models.ErrNotFound.
	ChannelByID(ctx context.Context, id int64) (*models.Channel, error)
	// JobByID returns job id (for the schedule description of its
	// events), or an error wrapping models.ErrNotFound.
	JobByID(ctx context.Context, id int64) (*models.Job, error)
	// WatchedMonitors returns the heartbeat monitors that are not paused.
	WatchedMonitors(ctx context.Context) ([]models.WatchedMonitor, error)
	// DecideMonitor records a monitor's occurrences whose grace passed as
	// met or missed (each once across engines) and raises monitorMissed
	// when the monitor goes down.
	DecideMonitor(ctx context.Context, d models.MonitorDecision) (models.MonitorDecided, error)
	// RaiseSlowRun raises slowRun for a monitor's open start ping, once.
	RaiseSlowRun(ctx context.Context, id int64, startedAt, now time.Time) (bool, error)
	// NextDeadline returns the earliest deadline moment of a job's
	// occurrence not yet decided; false when there is none.
	NextDeadline(ctx context.Context) (time.Time, bool, error)
	// DecideDeadlines decides the occurrences whose deadline moment is at
	// or before now (met, or deadlineMissed, once across engines).
	DecideDeadlines(ctx context.Context, now time.Time) (models.DeadlinesDecided, error)
	// RaiseJobSlowRun raises slowRun for a running attempt, once.
	RaiseJobSlowRun(ctx context.Context, a models.SlowAttempt) (bool, error)
}
