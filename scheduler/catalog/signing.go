package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/action"
)

// The changes of a collection's signing secret (SPEC §13.3, signed job
// requests). They need the editor role, like every other change of a
// collection's properties.
const (
	OpPutSigning    Op = "collection.signing.put"
	OpDeleteSigning Op = "collection.signing.delete"
)

// Limits of a rotation's overlap.
const (
	// DefaultSigningOverlap is how long a rotated secret keeps signing
	// when the caller names no overlap: a day, time for targets to take
	// the new secret.
	DefaultSigningOverlap = 24 * time.Hour
	// MaxSigningOverlap bounds the overlap.
	MaxSigningOverlap = 30 * 24 * time.Hour
)

// NewSigning is the answer of NewSigningSecret.
type NewSigning struct {
	// Secret is the new secret ("whsec_…"): shown to the user once, in the
	// answer to the write, and never again.
	Secret string
	// Rotated says that it replaced a secret; that one keeps signing until
	// PreviousUntil (nil when the overlap was zero).
	Rotated       bool
	PreviousUntil *time.Time
}

// NewSigningSecret gives the collection at ref a new signing secret, for
// actor (editor). When the collection signs already, this is a rotation:
// the old secret keeps signing beside the new one for overlap (0: it stops
// at once; from 0 to MaxSigningOverlap, else a problem at "overlap"), so
// that targets can switch without refusing requests. A secret that a
// rotation replaced earlier and whose overlap has not ended is dropped.
// Errors: a *problem.List, models.ErrNotFound for an unknown collection,
// models.ErrNoSecretKey when the server has no secret key.
func (c *Catalog) NewSigningSecret(ctx context.Context, actor Actor, ref models.CollectionRef, overlap time.Duration) (*NewSigning, error) {
	ch := collectionChange(OpPutSigning, ref, "")
	if err := c.allow(ctx, actor, ch); err != nil {
		return nil, err
	}
	if overlap < 0 || overlap > MaxSigningOverlap {
		return nil, problem.New("overlap", fmt.Sprintf("%s is not a duration from 0 to 30 days", overlap))
	}
	var out *NewSigning
	rec := &record{Change: ch, Secrets: []string{"signingSecret"}}
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		row, err := tc.store.CollectionByRef(ctx, ref)
		if err != nil {
			return fmt.Errorf("catalog: new signing secret: %w", err)
		}
		out, err = tc.newSigningSecret(ctx, actor, row, overlap, rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// newSigningSecret is NewSigningSecret of the collection row in the
// write's transaction, filling rec's names and Detail ("generated" or
// "rotated").
func (c *Catalog) newSigningSecret(ctx context.Context, actor Actor, row *models.CollectionRow, overlap time.Duration, rec *record) (*NewSigning, error) {
	out := &NewSigning{}
	secret, err := action.NewWebhookSecret()
	if err != nil {
		return nil, fmt.Errorf("catalog: new signing secret: %w", err)
	}
	out.Secret = secret
	w := models.SigningWrite{CollectionID: row.ID, Current: secret, UserID: actor.UserID}
	cur, err := c.store.SigningOf(ctx, row.ID)
	switch {
	case err == nil:
		out.Rotated = true
		if overlap > 0 {
			until := c.now().UTC().Add(overlap).Truncate(time.Second)
			w.Previous, w.PreviousUntil, out.PreviousUntil = cur.Current, &until, &until
		}
	case !errors.Is(err, models.ErrNotFound):
		return nil, fmt.Errorf("catalog: new signing secret: %w", err)
	}
	if err := c.store.PutSigning(ctx, w); err != nil {
		return nil, fmt.Errorf("catalog: new signing secret: %w", err)
	}
	rec.ResourceGroup, rec.Collection, rec.Detail = row.ResourceGroup, row.Name, "generated"
	if out.Rotated {
		rec.Detail = "rotated"
	}
	return out, nil
}

// RemoveSigningSecret removes the signing secret of the collection at ref,
// for actor (editor): its jobs' requests are unsigned from now on. A
// collection that does not sign, like an unknown one, is
// models.ErrNotFound.
func (c *Catalog) RemoveSigningSecret(ctx context.Context, actor Actor, ref models.CollectionRef) error {
	ch := collectionChange(OpDeleteSigning, ref, "")
	if err := c.allow(ctx, actor, ch); err != nil {
		return err
	}
	rec := &record{Change: ch, Secrets: []string{"signingSecret"}}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		row, err := tc.store.CollectionByRef(ctx, ref)
		if err != nil {
			return fmt.Errorf("catalog: remove signing secret: %w", err)
		}
		if err := tc.store.DeleteSigning(ctx, row.ID); err != nil {
			return fmt.Errorf("catalog: remove signing secret: %w", err)
		}
		rec.ResourceGroup, rec.Collection = row.ResourceGroup, row.Name
		return nil
	})
}
