package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// CollectionRef names a job collection: its subscription (the Sked
// workspace), resource group and name.
type CollectionRef struct {
	Subscription, ResourceGroup, Name string
}

// String returns "subscription/resourceGroup/name".
func (r CollectionRef) String() string {
	return r.Subscription + "/" + r.ResourceGroup + "/" + r.Name
}

// path is the collection's ARM path.
func (r CollectionRef) path() string {
	return "/subscriptions/" + url.PathEscape(r.Subscription) + "/resourceGroups/" + url.PathEscape(r.ResourceGroup) +
		"/providers/Microsoft.Scheduler/jobCollections/" + url.PathEscape(r.Name)
}

// jobPath is the ARM path of the job name of r.
func (r CollectionRef) jobPath(name string) string { return r.path() + "/jobs/" + url.PathEscape(name) }

// Resource is a collection or a job as the API answers it (the ARM
// shape). Properties is the server's JSON as it is; for a job it holds the
// definition plus the read-only "status", "stateChangedBy" and
// "stateChangedAt".
type Resource struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Location   string          `json:"location,omitempty"`
	Tags       json.RawMessage `json:"tags,omitempty"`
	Properties json.RawMessage `json:"properties"`
}

// armQuery is the query every ARM request carries.
func armQuery() url.Values { return url.Values{"api-version": {APIVersion}} }

// listQuery is the query of an ARM list: armQuery with the client's
// PageSize.
func (c *Client) listQuery() url.Values {
	q := armQuery()
	if c.PageSize > 0 {
		q.Set("$top", strconv.Itoa(c.PageSize))
	}
	return q
}

// Collections lists the job collections of subscription, of resourceGroup
// only when it is not empty, following nextLink.
func (c *Client) Collections(ctx context.Context, subscription, resourceGroup string) ([]Resource, error) {
	path := "/subscriptions/" + url.PathEscape(subscription)
	if resourceGroup != "" {
		path += "/resourceGroups/" + url.PathEscape(resourceGroup)
	}
	return list[Resource](ctx, c, path+"/providers/Microsoft.Scheduler/jobCollections", c.listQuery())
}

// Collection returns the collection at ref (an *Error with status 404
// when there is none).
func (c *Client) Collection(ctx context.Context, ref CollectionRef) (Resource, error) {
	var out Resource
	err := c.do(ctx, http.MethodGet, ref.path(), armQuery(), nil, &out)
	return out, err
}

// PutCollection creates or replaces the collection at ref with body (the
// ARM shape) and returns it as stored.
func (c *Client) PutCollection(ctx context.Context, ref CollectionRef, body []byte) (Resource, error) {
	var out Resource
	err := c.do(ctx, http.MethodPut, ref.path(), armQuery(), body, &out)
	return out, err
}

// Jobs lists the jobs of the collection at ref, only those in state when
// it is not empty ("Enabled", "Disabled", …), following nextLink.
func (c *Client) Jobs(ctx context.Context, ref CollectionRef, state string) ([]Resource, error) {
	q := c.listQuery()
	if state != "" {
		q.Set("$filter", "state eq "+state)
	}
	return list[Resource](ctx, c, ref.path()+"/jobs", q)
}

// Job returns the job name of the collection at ref.
func (c *Client) Job(ctx context.Context, ref CollectionRef, name string) (Resource, error) {
	var out Resource
	err := c.do(ctx, http.MethodGet, ref.jobPath(name), armQuery(), nil, &out)
	return out, err
}

// PutJob creates or replaces the job name of the collection at ref with
// body (either shape of the job JSON) and returns it as stored.
func (c *Client) PutJob(ctx context.Context, ref CollectionRef, name string, body []byte) (Resource, error) {
	var out Resource
	err := c.do(ctx, http.MethodPut, ref.jobPath(name), armQuery(), body, &out)
	return out, err
}

// DeleteJob deletes the job name of the collection at ref with its
// history.
func (c *Client) DeleteJob(ctx context.Context, ref CollectionRef, name string) error {
	return c.do(ctx, http.MethodDelete, ref.jobPath(name), armQuery(), nil, nil)
}

// RunJob starts an occurrence of the job name at once.
func (c *Client) RunJob(ctx context.Context, ref CollectionRef, name string) error {
	return c.do(ctx, http.MethodPost, ref.jobPath(name)+"/run", armQuery(), nil, nil)
}

// HistoryEntry is one entry of a job's history.
type HistoryEntry struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Properties HistoryProperties `json:"properties"`
}

// HistoryProperties are a history entry's fields (times in RFC 3339,
// UTC).
type HistoryProperties struct {
	StartTime             string  `json:"startTime"`
	EndTime               *string `json:"endTime,omitempty"`
	ExpectedExecutionTime string  `json:"expectedExecutionTime"`
	ActionName            string  `json:"actionName"`
	Status                string  `json:"status"`
	Message               string  `json:"message"`
	RetryCount            int     `json:"retryCount"`
	RepeatCount           int64   `json:"repeatCount"`
}

// History returns the newest entries of the job name's history, newest
// first: at most limit (all when limit is 0), only those of status when
// it is not empty ("Completed", "Failed", …). It follows nextLink until
// it has limit entries.
func (c *Client) History(ctx context.Context, ref CollectionRef, name, status string, limit int) ([]HistoryEntry, error) {
	q := c.listQuery()
	if status != "" {
		q.Set("$filter", "status eq "+status)
	}
	if limit > 0 && limit < 100 && (c.PageSize == 0 || limit < c.PageSize) {
		q.Set("$top", strconv.Itoa(limit))
	}
	if limit > 0 {
		return firstPages[HistoryEntry](ctx, c, ref.jobPath(name)+"/history", q, limit)
	}
	return list[HistoryEntry](ctx, c, ref.jobPath(name)+"/history", q)
}

// firstPages is list stopped once it has limit items.
func firstPages[T any](ctx context.Context, c *Client, path string, query url.Values, limit int) ([]T, error) {
	var out []T
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = query.Encode()
	for len(out) < limit {
		var p page[T]
		if err := c.send(ctx, http.MethodGet, &u, nil, &p); err != nil {
			return nil, err
		}
		out = append(out, p.Value...)
		if p.NextLink == "" {
			break
		}
		next, err := url.Parse(p.NextLink)
		if err != nil {
			return nil, err
		}
		u = *c.base
		u.Path, u.RawPath, u.RawQuery = next.Path, next.RawPath, next.RawQuery
	}
	return out[:min(len(out), limit)], nil
}
