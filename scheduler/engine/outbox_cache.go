package engine

import (
	"context"
	"sync"
	"time"
)

// outboxTTL is how long the outbox keeps a channel or a job's description
// it read: a changed channel (a new URL or secret) is used at most this
// long after the change.
const outboxTTL = 5 * time.Second

// ttlCache keeps values the outbox reads (channels with their secrets
// opened, the schedule descriptions of jobs) for outboxTTL, so that a
// burst of notifications reads each once: the senders that miss the same
// id at the same time wait for one read. Safe for concurrent use.
type ttlCache[V any] struct {
	mu sync.Mutex
	m  map[int64]ttlEntry[V]
	// loading has the ids being read, closed when the read ends.
	loading map[int64]chan struct{}
}

type ttlEntry[V any] struct {
	v     V
	until time.Time
}

// get returns the value of id, read with load when it is not cached or its
// entry is older than outboxTTL (by the real clock: the TTL bounds a real
// delay). Errors are not cached.
func (c *ttlCache[V]) get(ctx context.Context, id int64, load func(context.Context, int64) (V, error)) (V, error) {
	for {
		now := time.Now()
		c.mu.Lock()
		e, ok := c.m[id]
		if ok && now.Before(e.until) {
			c.mu.Unlock()
			return e.v, nil
		}
		wait, busy := c.loading[id]
		if !busy {
			if c.loading == nil {
				c.loading = map[int64]chan struct{}{}
			}
			done := make(chan struct{})
			c.loading[id] = done
			c.mu.Unlock()
			v, err := c.load(ctx, id, now, load)
			c.mu.Lock()
			delete(c.loading, id)
			c.mu.Unlock()
			close(done)
			return v, err
		}
		c.mu.Unlock()
		select {
		case <-wait: // read by another sender (or failed: read again)
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
}

// load reads id with load and keeps it from now, dropping the expired
// entries.
func (c *ttlCache[V]) load(ctx context.Context, id int64, now time.Time, load func(context.Context, int64) (V, error)) (V, error) {
	v, err := load(ctx, id)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[int64]ttlEntry[V]{}
	}
	for k, old := range c.m {
		if !now.Before(old.until) {
			delete(c.m, k)
		}
	}
	c.m[id] = ttlEntry[V]{v: v, until: now.Add(outboxTTL)}
	c.mu.Unlock()
	return v, nil
}
