package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Backfills of a job (SPEC §16.3) and runs with changes (SPEC §16.4).

// BackfillRequest is a backfill of a job's occurrences in [From, To):
// Only is "missing" (the server's default when empty), "failed" or
// "all"; Order "oldestFirst" (default) or "newestFirst"; MaxConcurrent
// 1–20 (0: the server's default, 1); DryRun only lists what would happen.
type BackfillRequest struct {
	From, To      time.Time
	Only, Order   string
	MaxConcurrent int
	DryRun        bool
}

// BackfillOccurrence is one occurrence of a backfill's range and what
// happens to it: Action "run" or "skip" with its Reason.
type BackfillOccurrence struct {
	ExpectedTime time.Time `json:"expectedTime"`
	Action       string    `json:"action"`
	Reason       string    `json:"reason,omitempty"`
}

// Backfill is a backfill with its progress.
type Backfill struct {
	ID            int64      `json:"id"`
	State         string     `json:"state"`
	From          time.Time  `json:"from"`
	To            time.Time  `json:"to"`
	Only          string     `json:"only"`
	Order         string     `json:"order"`
	MaxConcurrent int        `json:"maxConcurrent"`
	Total         int        `json:"total"`
	Skipped       int        `json:"skipped"`
	Done          int        `json:"done"`
	Succeeded     int        `json:"succeeded"`
	Failed        int        `json:"failed"`
	Cancelled     int        `json:"cancelled"`
	Running       int        `json:"running"`
	Queued        int        `json:"queued"`
	CreatedBy     string     `json:"createdBy"`
	CreatedAt     time.Time  `json:"createdAt"`
	EndedAt       *time.Time `json:"endedAt,omitempty"`
}

// BackfillResult is the answer to a backfill: the occurrences and what
// happens to each, and the backfill created (nil for a dry run).
type BackfillResult struct {
	DryRun      bool                 `json:"dryRun"`
	Run         int                  `json:"run"`
	Skipped     int                  `json:"skipped"`
	Occurrences []BackfillOccurrence `json:"occurrences"`
	Backfill    *Backfill            `json:"backfill,omitempty"`
}

// backfillPath is the /api/v1 path of the job name of r.
func (r CollectionRef) backfillPath(name string) string {
	return "/api/v1/workspaces/" + url.PathEscape(r.Subscription) + "/collections/" + url.PathEscape(r.ResourceGroup) + "/" +
		url.PathEscape(r.Name) + "/jobs/" + url.PathEscape(name)
}

// Backfill backfills the job name of ref (or, with req.DryRun, lists what
// a backfill would do).
func (c *Client) Backfill(ctx context.Context, ref CollectionRef, name string, req BackfillRequest) (*BackfillResult, error) {
	in := map[string]any{"from": req.From.Format(time.RFC3339Nano), "to": req.To.Format(time.RFC3339Nano), "dryRun": req.DryRun}
	if req.Only != "" {
		in["only"] = req.Only
	}
	if req.Order != "" {
		in["order"] = req.Order
	}
	if req.MaxConcurrent != 0 {
		in["maxConcurrent"] = req.MaxConcurrent
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var out BackfillResult
	if err := c.do(ctx, http.MethodPost, ref.backfillPath(name)+"/backfill", nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Backfills returns the newest backfills of the job name of ref, newest
// first.
func (c *Client) Backfills(ctx context.Context, ref CollectionRef, name string) ([]Backfill, error) {
	var out struct {
		Value []Backfill `json:"value"`
	}
	if err := c.do(ctx, http.MethodGet, ref.backfillPath(name)+"/backfills", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Value, nil
}

// GetBackfill returns backfill id of the job name of ref.
func (c *Client) GetBackfill(ctx context.Context, ref CollectionRef, name string, id int64) (*Backfill, error) {
	var out Backfill
	if err := c.do(ctx, http.MethodGet, ref.backfillPath(name)+"/backfills/"+strconv.FormatInt(id, 10), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelBackfill cancels backfill id of the job name of ref: its runs not
// started are cancelled, running ones finish.
func (c *Client) CancelBackfill(ctx context.Context, ref CollectionRef, name string, id int64) (*Backfill, error) {
	var out Backfill
	if err := c.do(ctx, http.MethodPost, ref.backfillPath(name)+"/backfills/"+strconv.FormatInt(id, 10)+"/cancel", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RunJobWith starts an occurrence of the job name at once with changes of
// its request for this one run: headers merged over the job's, and body,
// when not nil, replacing its body (the editor role).
func (c *Client) RunJobWith(ctx context.Context, ref CollectionRef, name string, headers map[string]string, body *string) error {
	req := map[string]any{}
	if len(headers) > 0 {
		req["headers"] = headers
	}
	if body != nil {
		req["body"] = *body
	}
	data, err := json.Marshal(map[string]any{"request": req})
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, ref.jobPath(name)+"/run", armQuery(), data, nil)
}
