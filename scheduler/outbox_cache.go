package scheduler

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
// burst of notifications reads each once. Safe for concurrent use.
type ttlCache[V any] struct {
	mu sync.Mutex
	m  map[int64]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v     V
	until time.Time
}

// get returns the value of id, read with load when it is not cached or its
// entry is older than outboxTTL (by the real clock: the TTL bounds a real
// delay). Errors are not cached.
func (c *ttlCache[V]) get(ctx context.Context, id int64, load func(context.Context, int64) (V, error)) (V, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.v, nil
	}
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
