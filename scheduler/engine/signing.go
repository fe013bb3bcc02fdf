package engine

import (
	"context"
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// SigningSource gives the signing secrets of a job's collection (SPEC
// §13.3, signed job requests): newest first, the previous secret of a
// rotation while its overlap lasts, nil when the collection does not
// sign. *models.Store satisfies it. Safe for concurrent use.
type SigningSource interface {
	SigningSecretsOfJob(ctx context.Context, jobID int64, now time.Time) ([]string, error)
}

// signingSourceOf is deps.Signing, or deps.Store when it is one.
func signingSourceOf(deps Deps) SigningSource {
	if deps.Signing != nil {
		return deps.Signing
	}
	if s, ok := deps.Store.(SigningSource); ok {
		return s
	}
	return nil
}

// signingCacheOf is the cache of the engine's signing secrets when its
// source can read them by collection, else nil (every attempt asks the
// source).
func signingCacheOf(src SigningSource) *signingCache {
	if c, ok := src.(signingByCollection); ok {
		return &signingCache{src: c}
	}
	return nil
}

// signingSecrets returns the secrets that sign the request of spec, an
// action of attempt a: nil for actions that are not HTTP or when the
// collection does not sign. When they cannot be read the attempt must not
// go out unsigned: the error says why, for the job's history.
func (e *Engine) signingSecrets(ctx context.Context, a *models.ClaimedAttempt, spec *jobdef.Action) ([]string, error) {
	if e.signing == nil || (spec.Kind != jobdef.KindHTTP && spec.Kind != jobdef.KindHTTPS) {
		return nil, nil
	}
	jobID := a.JobID
	var secrets []string
	var err error
	if e.signingCache != nil && a.JobCollectionID != 0 {
		secrets, err = e.signingCache.secrets(ctx, a.JobCollectionID, a.SigningAt, e.clock.Now())
	} else {
		secrets, err = e.signing.SigningSecretsOfJob(ctx, jobID, e.clock.Now())
	}
	if err != nil {
		e.logger.Error("cannot read the signing secrets of a job", "job_id", jobID, "err", err)
		return nil, fmt.Errorf("the collection's signing secret cannot be read, so the request was not sent: %w", err)
	}
	return secrets, nil
}
