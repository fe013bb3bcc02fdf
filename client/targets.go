package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Targets is the kind of a workspace's target limits (SPEC §16.2). It is
// not one of Kinds: sked apply does not manage them.
const Targets Kind = "targets"

// TargetLimit is a workspace's limit of what its jobs send to one host:
// at most MaxConcurrent attempts in flight, at most MaxPerSecond starts in
// any second (nil: no limit of that kind). InFlight, Waiting and
// LongestWaitMs are set in lists only.
type TargetLimit struct {
	Host          string    `json:"host"`
	MaxConcurrent *int      `json:"maxConcurrent,omitempty"`
	MaxPerSecond  *int      `json:"maxPerSecond,omitempty"`
	InFlight      *int64    `json:"inFlight,omitempty"`
	Waiting       *int64    `json:"waiting,omitempty"`
	LongestWaitMs *int64    `json:"longestWaitMs,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// TargetLimits lists the target limits of workspace ws, in host order.
func (c *Client) TargetLimits(ctx context.Context, ws string) ([]TargetLimit, error) {
	return list[TargetLimit](ctx, c, Targets.path(ws, ""), nil)
}

// TargetLimit returns the limit of host in workspace ws (a *Error with
// status 404 when it has none).
func (c *Client) TargetLimit(ctx context.Context, ws, host string) (*TargetLimit, error) {
	var out TargetLimit
	if err := c.do(ctx, http.MethodGet, Targets.path(ws, host), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PutTargetLimit sets the limit of host (host or host:port) in workspace
// ws and returns it as stored; at least one of maxConcurrent and
// maxPerSecond is given.
func (c *Client) PutTargetLimit(ctx context.Context, ws, host string, maxConcurrent, maxPerSecond *int) (*TargetLimit, error) {
	body, err := json.Marshal(struct {
		MaxConcurrent *int `json:"maxConcurrent,omitempty"`
		MaxPerSecond  *int `json:"maxPerSecond,omitempty"`
	}{maxConcurrent, maxPerSecond})
	if err != nil {
		return nil, err
	}
	var out TargetLimit
	if err := c.do(ctx, http.MethodPut, Targets.path(ws, host), nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteTargetLimit removes the limit of host in workspace ws.
func (c *Client) DeleteTargetLimit(ctx context.Context, ws, host string) error {
	return c.do(ctx, http.MethodDelete, Targets.path(ws, host), nil, nil, nil)
}
