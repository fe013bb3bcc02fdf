package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Workspace is a workspace the token's user is a member of (an ARM
// subscription), with the role the token has in it.
type Workspace struct {
	ID          string    `json:"id"`
	DisplayName string    `json:"displayName"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Workspaces lists the workspaces the token covers.
func (c *Client) Workspaces(ctx context.Context) ([]Workspace, error) {
	return list[Workspace](ctx, c, "/api/v1/workspaces", nil)
}

// Kind is a kind of object a workspace holds under /api/v1/workspaces/{ws}/.
type Kind string

// The kinds of workspace objects: the path segment of their routes.
const (
	Calendars Kind = "calendars" // SPEC §13.6
	Channels  Kind = "channels"  // SPEC §13.3
	Alerts    Kind = "alerts"    // SPEC §13.3, alert rules
	// Monitors are heartbeat monitors (SPEC §17.3); apply carries their
	// definitions, never their ping tokens (a monitor's ping URL is its
	// own, kept by the server).
	Monitors Kind = "monitors"
)

// Kinds are the workspace objects' kinds, in the order an apply creates
// them (a monitor's schedule excludes calendars; an alert rule names a
// channel).
var Kinds = []Kind{Calendars, Monitors, Channels, Alerts}

// path is the route of the kind's objects in workspace ws, or of the one
// named name when name is not empty.
func (k Kind) path(ws, name string) string {
	p := "/api/v1/workspaces/" + url.PathEscape(ws) + "/" + string(k)
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p
}

// Objects lists the objects of kind in workspace ws, each as the API
// answers GET of it (with "name" and the read-only times).
func (c *Client) Objects(ctx context.Context, ws string, kind Kind) ([]json.RawMessage, error) {
	return list[json.RawMessage](ctx, c, kind.path(ws, ""), nil)
}

// Object returns the object name of kind in workspace ws.
func (c *Client) Object(ctx context.Context, ws string, kind Kind, name string) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, http.MethodGet, kind.path(ws, name), nil, nil, &out)
	return out, err
}

// PutObject creates or replaces the object name of kind in workspace ws
// with body and returns it as stored (for a new webhook channel, with its
// signing secret, shown this once).
func (c *Client) PutObject(ctx context.Context, ws string, kind Kind, name string, body []byte) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, http.MethodPut, kind.path(ws, name), nil, body, &out)
	return out, err
}

// DeleteObject deletes the object name of kind in workspace ws.
func (c *Client) DeleteObject(ctx context.Context, ws string, kind Kind, name string) error {
	return c.do(ctx, http.MethodDelete, kind.path(ws, name), nil, nil, nil)
}

// RotateMonitor gives the heartbeat monitor name of workspace ws a new ping
// URL and returns the monitor with it (pingUrl); the old URL stops working.
func (c *Client) RotateMonitor(ctx context.Context, ws, name string) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, http.MethodPost, Monitors.path(ws, name)+"/rotate", nil, nil, &out)
	return out, err
}
