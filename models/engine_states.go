package models

import "errors"

// The engine's queries (SPEC §4), one file per concept: engine_claim.go
// (what is due), engine_finish.go (results), engine_jobstate.go (the
// engine columns of jobs), engine_attempts.go, engine_wake.go,
// engine_retention.go, engine_notify.go and engine_throttle.go (the
// notifications of alert rules, stored with what causes them). The engine (package engine) decides; these
// methods only read and write, each in one short transaction, with the
// caller's clock. The recurrence maths stays out of this package.

// NotifyChannel is the LISTEN/NOTIFY channel on which the database tells
// the engines that there is something to look at: a job was created,
// changed, enabled or run now, or a collection was enabled (empty payload:
// look again now); or that an attempt was stored due at a given time (a
// retry, an error action, the recovery of a dead instance's attempts: the
// payload is that time, see DuePayload), for which the engines arm a timer;
// or that a notification was stored (NotifySendPayload), for the engines'
// notification senders.
const NotifyChannel = "sked_engine"

// ErrJobNotEnabled means that the operation needs an enabled job.
var ErrJobNotEnabled = errors.New("job is not enabled")

// ErrJobFinished means that the job is completed or faulted: final states
// that only allow deletion.
var ErrJobFinished = errors.New("job is completed or faulted")

// AttemptStatus is the status of a row of job_attempts.
type AttemptStatus string

// The attempt statuses: pending (a retry, an error action or a run-now
// request waiting for its due time, or an attempt released by a stopping
// engine), then running (leased to an engine). A finished attempt is
// deleted, its history entry written (migration 0031).
const (
	AttemptPending AttemptStatus = "pending"
	AttemptRunning AttemptStatus = "running"
)
