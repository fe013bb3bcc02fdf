package action

import (
	"context"
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// Attempt is one execution of an action.
type Attempt struct {
	// JobID and AttemptID identify the job and the attempt (the execution
	// tag).
	JobID, AttemptID int64
	// ExpectedTime is the occurrence's scheduled instant.
	ExpectedTime time.Time
	// Spec is the action to run (the main action or the error action).
	Spec *jobdef.Action
	// Timeout bounds the attempt; zero means DefaultTimeout (60 s).
	Timeout time.Duration
	// SigningSecrets are the signing secrets ("whsec_…") of the job's
	// collection when it signs its requests (SPEC §13.3, signed job
	// requests), newest first; nil means unsigned. An HTTP request then
	// carries the Standard Webhooks headers with webhook-id = the
	// Idempotency-Key and one v1 signature per secret, so that a target
	// keeps verifying while a secret is rotated.
	SigningSecrets []string
}

// IdempotencyKey returns the Idempotency-Key of the attempt: the job id and
// the expected time, the same for every retry of one occurrence (and for
// its error action).
func (a *Attempt) IdempotencyKey() string {
	return fmt.Sprintf("%d:%s", a.JobID, a.ExpectedTime.UTC().Format(time.RFC3339Nano))
}

// Result is the outcome of an attempt.
type Result struct {
	// Succeeded is true for a 2xx answer.
	Succeeded bool
	// StatusCode is the HTTP status, 0 when there was no answer.
	StatusCode int
	// Message is the status and the first MaxBodyKept bytes of the body,
	// or the error; it never contains the action's secrets.
	Message string
	// Duration is how long the attempt took.
	Duration time.Duration
	// Exchange is what was sent and received, masked and capped for the
	// execution detail page; nil when nothing was sent.
	Exchange *models.Exchange
}

// Executor runs attempts of one or more action types. Implementations are
// safe for concurrent use and return when ctx ends.
type Executor interface {
	Execute(ctx context.Context, a *Attempt) Result
}
