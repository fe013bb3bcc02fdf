// Package action executes the actions of jobs (SPEC §5): today the HTTP and
// HTTPS actions; storage queues, service bus, outbound authentication and
// the SSRF guard plug in later behind the same Executor interface.
//
// Parse reads an action object (the job's action, or its errorAction) into
// a Spec. It is lenient on purpose: validation against the limits of SPEC
// §1 and §4 is the job API's business; the engine runs what was stored.
package action

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models/jobdef"
)

// Default retry policy (SPEC §4): fixed, every 30 s, 4 retries.
const (
	DefaultRetryInterval = 30 * time.Second
	DefaultRetryCount    = 4
)

// RetryPolicy is action.retryPolicy. The zero value means no retry.
type RetryPolicy struct {
	// Fixed is true for retryType fixed, false for none.
	Fixed bool
	// Interval is the wait between a failed attempt and the next one.
	Interval time.Duration
	// Count is the number of retries after the first attempt.
	Count int
}

// MaxAttempts returns how many attempts one occurrence of the action may
// make: 1 plus the retries.
func (p RetryPolicy) MaxAttempts() int {
	if !p.Fixed {
		return 1
	}
	return 1 + p.Count
}

// DefaultRetryPolicy is the policy of an action without retryPolicy.
var DefaultRetryPolicy = RetryPolicy{Fixed: true, Interval: DefaultRetryInterval, Count: DefaultRetryCount}

// HTTPRequest is action.request of an http or https action.
type HTTPRequest struct {
	URI     string
	Method  string
	Headers map[string]string
	Body    string
}

// Spec is a parsed action object.
type Spec struct {
	// Type is action.type lowercased ("http", "https", "storagequeue" …).
	Type string
	// Raw is the action object as stored.
	Raw json.RawMessage
	// Request is set for http and https actions.
	Request *HTTPRequest
	// RetryPolicy applies to the attempts of one occurrence.
	RetryPolicy RetryPolicy
	// ErrorAction is the main action's errorAction, or nil.
	ErrorAction *Spec
}

// Parse reads the action object raw. The retry policy defaults as in SPEC
// §4; an error names what cannot be read.
func Parse(raw json.RawMessage) (*Spec, error) {
	return parse(raw, true)
}

type wireAction struct {
	Type        string          `json:"type"`
	Request     json.RawMessage `json:"request"`
	RetryPolicy json.RawMessage `json:"retryPolicy"`
	ErrorAction json.RawMessage `json:"errorAction"`
}

type wireRequest struct {
	URI     string            `json:"uri"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

type wireRetry struct {
	RetryType     string          `json:"retryType"`
	RetryInterval string          `json:"retryInterval"`
	RetryCount    json.RawMessage `json:"retryCount"`
}

func parse(raw json.RawMessage, main bool) (*Spec, error) {
	var w wireAction
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("action: %w", err)
	}
	s := &Spec{Type: strings.ToLower(strings.TrimSpace(w.Type)), Raw: raw, RetryPolicy: DefaultRetryPolicy}
	if s.Type == "" {
		return nil, fmt.Errorf("action: type is required")
	}
	if s.Type == "http" || s.Type == "https" {
		var r wireRequest
		if len(w.Request) == 0 || string(w.Request) == "null" {
			return nil, fmt.Errorf("action: request is required for type %q", w.Type)
		}
		if err := json.Unmarshal(w.Request, &r); err != nil {
			return nil, fmt.Errorf("action: request: %w", err)
		}
		if r.URI == "" {
			return nil, fmt.Errorf("action: request.uri is required")
		}
		if r.Method == "" {
			return nil, fmt.Errorf("action: request.method is required")
		}
		s.Request = &HTTPRequest{URI: r.URI, Method: strings.ToUpper(r.Method), Headers: r.Headers, Body: r.Body}
	}
	if len(w.RetryPolicy) > 0 && string(w.RetryPolicy) != "null" {
		p, err := parseRetry(w.RetryPolicy)
		if err != nil {
			return nil, err
		}
		s.RetryPolicy = p
	}
	if main && len(w.ErrorAction) > 0 && string(w.ErrorAction) != "null" {
		ea, err := parse(w.ErrorAction, false)
		if err != nil {
			return nil, fmt.Errorf("errorAction: %w", err)
		}
		s.ErrorAction = ea
	}
	return s, nil
}

func parseRetry(raw json.RawMessage) (RetryPolicy, error) {
	var w wireRetry
	if err := json.Unmarshal(raw, &w); err != nil {
		return RetryPolicy{}, fmt.Errorf("action: retryPolicy: %w", err)
	}
	switch strings.ToLower(w.RetryType) {
	case "none":
		return RetryPolicy{}, nil
	case "fixed", "":
	default:
		return RetryPolicy{}, fmt.Errorf("action: retryPolicy.retryType %q is not none or fixed", w.RetryType)
	}
	p := DefaultRetryPolicy
	if w.RetryInterval != "" {
		d, err := ParseInterval(w.RetryInterval)
		if err != nil {
			return RetryPolicy{}, fmt.Errorf("action: retryPolicy.retryInterval: %w", err)
		}
		p.Interval = d
	}
	if len(w.RetryCount) > 0 && string(w.RetryCount) != "null" {
		var n int
		if err := json.Unmarshal(w.RetryCount, &n); err != nil || n < 0 {
			return RetryPolicy{}, fmt.Errorf("action: retryPolicy.retryCount %s is not a whole number ≥ 0", w.RetryCount)
		}
		p.Count = n
	}
	return p, nil
}

// ParseInterval reads a retry interval: an ISO 8601 duration ("PT30S") or
// the .NET TimeSpan form "[d.]hh:mm:ss". It must be longer than zero.
func ParseInterval(s string) (time.Duration, error) {
	var d time.Duration
	if strings.Contains(s, ":") {
		days := 0
		rest := s
		if before, after, ok := strings.Cut(s, "."); ok && !strings.Contains(before, ":") {
			n, err := strconv.Atoi(before)
			if err != nil {
				return 0, fmt.Errorf("%q is not a duration", s)
			}
			days, rest = n, after
		}
		parts := strings.Split(rest, ":")
		if len(parts) != 3 {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		h, err1 := strconv.Atoi(parts[0])
		m, err2 := strconv.Atoi(parts[1])
		sec, err3 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		d = time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
			time.Duration(sec*float64(time.Second))
	} else {
		var err error
		if d, err = jobdef.ParseISODuration(s); err != nil {
			return 0, err
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be longer than zero", s)
	}
	return d, nil
}
