package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"sked/models"
)

// signingCache keeps the opened signing secret of each collection whose
// jobs the engine ran, with the updated_at it was read at. An attempt's
// claim reads the current updated_at of its collection's secret
// (models.ClaimedAttempt.SigningAt): the cached secret serves while it is
// the same, and a rotation or a new secret (a new updated_at) is read
// again, so the first attempt claimed after the change already uses it. A
// collection that does not sign costs no read at all. At most
// signingCacheSize collections are kept (cleared whole when full: there
// are few signing collections). Safe for concurrent use.
type signingCache struct {
	src Store

	mu sync.Mutex
	m  map[int64]*models.Signing
	// reads counts the secrets read from the store (tests).
	reads int64
}

// signingCacheSize caps the collections a signingCache keeps.
const signingCacheSize = 10_000

// secrets returns the secrets that sign an attempt of a job of collection
// collectionID at now, for a claim that read the collection's secret at
// at (nil: the collection does not sign).
func (c *signingCache) secrets(ctx context.Context, collectionID int64, at *time.Time, now time.Time) ([]string, error) {
	if at == nil {
		return nil, nil
	}
	c.mu.Lock()
	g, ok := c.m[collectionID]
	c.mu.Unlock()
	if !ok || !g.UpdatedAt.Equal(*at) {
		var err error
		g, err = c.src.SigningOf(ctx, collectionID)
		if errors.Is(err, models.ErrNotFound) {
			return nil, nil // removed since the claim: unsigned from now on
		}
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.reads++
		if c.m == nil || len(c.m) >= signingCacheSize {
			c.m = map[int64]*models.Signing{}
		}
		if old, ok := c.m[collectionID]; !ok || !old.UpdatedAt.After(g.UpdatedAt) {
			c.m[collectionID] = g
		}
		c.mu.Unlock()
	}
	return g.Secrets(now), nil
}
