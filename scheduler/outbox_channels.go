package scheduler

import (
	"context"
	"sync"
	"time"

	"sked/models/notifydef"
)

// channelTTL is how long the outbox keeps a channel it read: a changed
// channel (a new URL or secret) is used at most this long after the
// change.
const channelTTL = 5 * time.Second

// channelCache keeps the channels the outbox sends to, read with their
// secrets opened, for channelTTL, so that a burst of notifications to one
// channel reads it once. Safe for concurrent use.
type channelCache struct {
	mu sync.Mutex
	m  map[int64]cachedChannel
}

type cachedChannel struct {
	ch    *notifydef.Channel
	until time.Time
}

// get returns channel id, read with load when it is not cached or its
// entry is older than channelTTL (by the real clock: the TTL bounds a
// real delay). Errors are not cached.
func (c *channelCache) get(ctx context.Context, id int64, load func(context.Context, int64) (*notifydef.Channel, error)) (*notifydef.Channel, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.ch, nil
	}
	ch, err := load(ctx, id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[int64]cachedChannel{}
	}
	for k, v := range c.m {
		if !now.Before(v.until) {
			delete(c.m, k)
		}
	}
	c.m[id] = cachedChannel{ch: ch, until: now.Add(channelTTL)}
	c.mu.Unlock()
	return ch, nil
}
