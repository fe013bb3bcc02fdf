package engine

import (
	"context"
	"fmt"

	"sked/models"
	"sked/models/jobdef"
)

// signingSecrets returns the secrets that sign the request of spec, an
// action of attempt a: nil for actions that are not HTTP or when the
// collection does not sign. When they cannot be read the attempt must not
// go out unsigned: the error says why, for the job's history.
func (e *Engine) signingSecrets(ctx context.Context, a *models.ClaimedAttempt, spec *jobdef.Action) ([]string, error) {
	if spec.Kind != jobdef.KindHTTP && spec.Kind != jobdef.KindHTTPS {
		return nil, nil
	}
	secrets, err := e.signingCache.secrets(ctx, a.JobCollectionID, a.SigningAt, e.clock.Now())
	if err != nil {
		e.logger.Error("cannot read the signing secrets of a job", "job_id", a.JobID, "err", err)
		return nil, fmt.Errorf("the collection's signing secret cannot be read, so the request was not sent: %w", err)
	}
	return secrets, nil
}
