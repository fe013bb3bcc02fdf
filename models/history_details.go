package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// The caps of what an execution's detail stores (migration 0020): the
// engine masks secrets and cuts the request and the response to these
// sizes before they reach FinishAttempts.
const (
	// MaxDetailRequestBody caps the stored request body (8 KiB).
	MaxDetailRequestBody = 8 << 10
	// MaxDetailResponseBody caps the stored response body: the first
	// 2,048 bytes, as the history message keeps (SPEC §4).
	MaxDetailResponseBody = 2048
	// MaxDetailHeaders caps the stored headers of each side (names and
	// values together, 8 KiB).
	MaxDetailHeaders = 8 << 10
	// MaxDetailURL caps the stored request URL (2 KiB).
	MaxDetailURL = 2 << 10
)

// HeaderField is one header of a stored request or response.
type HeaderField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ExchangeRequest is the request an attempt sent, its secrets masked.
type ExchangeRequest struct {
	Method  string        `json:"method"`
	URL     string        `json:"url"`
	Headers []HeaderField `json:"headers"`
	Body    string        `json:"body"`
	// BodyTruncated and HeadersTruncated say that the caps cut them.
	BodyTruncated    bool `json:"bodyTruncated,omitempty"`
	HeadersTruncated bool `json:"headersTruncated,omitempty"`
	// ClientCertificate says a TLS client certificate was presented (it
	// is never stored).
	ClientCertificate bool `json:"clientCertificate,omitempty"`
}

// ExchangeResponse is the answer an attempt received, its secrets masked.
type ExchangeResponse struct {
	Status           int           `json:"status"`
	StatusText       string        `json:"statusText"`
	Headers          []HeaderField `json:"headers"`
	Body             string        `json:"body"`
	BodyTruncated    bool          `json:"bodyTruncated,omitempty"`
	HeadersTruncated bool          `json:"headersTruncated,omitempty"`
}

// Exchange is what one attempt sent and received, masked and capped by
// the engine (scheduler/action) for the execution detail page. Response
// is nil when no answer came (a connection error, a timeout).
type Exchange struct {
	SentAt         time.Time
	IdempotencyKey string
	Request        ExchangeRequest
	Response       *ExchangeResponse
}

// ExecutionDetail is one history entry with what its detail page shows.
// The fields after Entry are zero for entries written without details
// (Postponed entries, those recorded before migration 0020).
type ExecutionDetail struct {
	Entry HistoryEntry
	// HasDetails says a job_history_details row exists.
	HasDetails bool
	// Instance is the engine instance that ran the attempt.
	Instance string
	// DueAt, ClaimedAt and SentAt are when the attempt was due, claimed
	// by the instance and its request sent (nil when unknown).
	DueAt, ClaimedAt, SentAt *time.Time
	IdempotencyKey           string
	Request                  *ExchangeRequest
	Response                 *ExchangeResponse
	// RerunAttempts are the history entries that re-ran this one's
	// occurrence because of it (ids, oldest first).
	RerunEntries []int64
}

// detailRow is ExecutionDetail as the query reads it.
type detailRow struct {
	HistoryID      *int64
	Instance       *string
	DueAt          *time.Time
	ClaimedAt      *time.Time
	SentAt         *time.Time
	IdempotencyKey *string
	Request        []byte
	Response       []byte
}

// ExecutionDetail returns history entry historyID of job jobID with its
// stored details, or ErrNotFound.
func (s *Store) ExecutionDetail(ctx context.Context, jobID, historyID int64) (*ExecutionDetail, error) {
	var e HistoryEntry
	if err := s.db.WithContext(ctx).Table("job_history h").Where("id = ? AND job_id = ? AND "+finishedEntry, historyID, jobID).
		Take(&e).Error; err != nil {
		return nil, translate("models: execution detail", err)
	}
	out := &ExecutionDetail{Entry: e}
	var rows []detailRow
	if err := s.db.WithContext(ctx).Raw(`SELECT history_id, instance, due_at, claimed_at, sent_at, idempotency_key,
			request, response FROM job_history_details WHERE history_id = ?`, historyID).Scan(&rows).Error; err != nil {
		return nil, translate("models: execution detail", err)
	}
	if len(rows) == 1 {
		r := rows[0]
		out.HasDetails = true
		out.Instance, out.IdempotencyKey = deref(r.Instance), deref(r.IdempotencyKey)
		out.DueAt, out.ClaimedAt, out.SentAt = r.DueAt, r.ClaimedAt, r.SentAt
		if len(r.Request) > 0 {
			out.Request = &ExchangeRequest{}
			if err := json.Unmarshal(r.Request, out.Request); err != nil {
				return nil, fmt.Errorf("models: execution detail %d: request: %w", historyID, err)
			}
		}
		if len(r.Response) > 0 {
			out.Response = &ExchangeResponse{}
			if err := json.Unmarshal(r.Response, out.Response); err != nil {
				return nil, fmt.Errorf("models: execution detail %d: response: %w", historyID, err)
			}
		}
	}
	if err := s.db.WithContext(ctx).Raw(`SELECT id FROM job_history WHERE job_id = ? AND rerun_of = ? ORDER BY id`,
		jobID, historyID).Scan(&out.RerunEntries).Error; err != nil {
		return nil, translate("models: execution detail", err)
	}
	return out, nil
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// detailWire is the details of one outcome as FinishAttempts sends them:
// the request and response, nil without an exchange. They are encoded
// with the batch, in its one pass (a json.RawMessage encoded apart would
// be scanned again, validated and compacted, by the batch's encoding).
type detailWire struct {
	Sent *time.Time        `json:"sent"`
	Key  string            `json:"ikey"`
	Req  *ExchangeRequest  `json:"req"`
	Resp *ExchangeResponse `json:"resp"`
}

// exchangeWire returns x for FinishAttempts, its text made storable
// (valid UTF-8 without NUL, which jsonb refuses).
func exchangeWire(x *Exchange) detailWire {
	if x == nil {
		return detailWire{}
	}
	req := x.Request
	req.Method, req.URL, req.Body = cleanText(req.Method), cleanText(req.URL), cleanText(req.Body)
	req.Headers = cleanHeaders(req.Headers)
	w := detailWire{Key: cleanText(x.IdempotencyKey), Req: &req}
	if !x.SentAt.IsZero() {
		t := x.SentAt
		w.Sent = &t
	}
	if x.Response != nil {
		resp := *x.Response
		resp.StatusText, resp.Body = cleanText(resp.StatusText), cleanText(resp.Body)
		resp.Headers = cleanHeaders(resp.Headers)
		w.Resp = &resp
	}
	return w
}

// cleanHeaders returns hs with storable text.
func cleanHeaders(hs []HeaderField) []HeaderField {
	out := make([]HeaderField, len(hs))
	for i, h := range hs {
		out[i] = HeaderField{Name: cleanText(h.Name), Value: cleanText(h.Value)}
	}
	return out
}
