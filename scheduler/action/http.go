package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"sked/models/jobdef"
)

// MaxBodyKept is how many bytes of a response body are kept for the
// history message (SPEC §4).
const MaxBodyKept = 2048

// drainLimit is how much more of a response body is read (and dropped) so
// that the connection can be reused; a longer body closes the connection.
const drainLimit = 64 << 10

// Headers Sked adds to every HTTP request (SPEC §5).
const (
	HeaderJobID          = "x-ms-scheduler-jobid"
	HeaderExpectedTime   = "x-ms-scheduler-expected-execution-time"
	HeaderExecutionTag   = "x-ms-scheduler-execution-tag"
	HeaderIdempotencyKey = "Idempotency-Key"
)

// Attempt is one execution of an action.
type Attempt struct {
	// JobID and AttemptID identify the job and the attempt (the execution
	// tag).
	JobID, AttemptID int64
	// ExpectedTime is the occurrence's scheduled instant.
	ExpectedTime time.Time
	// Spec is the action to run (the main action or the error action).
	Spec *jobdef.Action
	// Timeout bounds the attempt; zero means the default of 60 s.
	Timeout time.Duration
}

// IdempotencyKey returns the Idempotency-Key of the attempt: the job id and
// the expected time, the same for every retry of one occurrence (and for
// its error action).
func (a *Attempt) IdempotencyKey() string {
	return fmt.Sprintf("%d:%s", a.JobID, a.ExpectedTime.UTC().Format(time.RFC3339Nano))
}

// Result is the outcome of an attempt.
type Result struct {
	// Succeeded is true for a 2xx answer.
	Succeeded bool
	// StatusCode is the HTTP status, 0 when there was no answer.
	StatusCode int
	// Message is the status and the first MaxBodyKept bytes of the body,
	// or the error.
	Message string
	// Duration is how long the request took.
	Duration time.Duration
}

// Executor runs attempts of one or more action types. Implementations are
// safe for concurrent use and return when ctx ends.
type Executor interface {
	Execute(ctx context.Context, a *Attempt) Result
}

// Dispatcher is the Executor that hands each attempt to the executor of
// its action type (lowercase keys). Types without an executor fail with a
// message saying so. It must not be modified once in use.
type Dispatcher map[string]Executor

// NewDispatcher returns a Dispatcher that runs http and https actions with
// h.
func NewDispatcher(h *HTTPExecutor) Dispatcher {
	return Dispatcher{"http": h, "https": h}
}

// Execute runs a with the executor of its type.
func (d Dispatcher) Execute(ctx context.Context, a *Attempt) Result {
	if a.Spec == nil {
		return Result{Message: "no action to run"}
	}
	ex, ok := d[string(a.Spec.Kind)]
	if !ok {
		return Result{Message: fmt.Sprintf("action type %q is not supported by this version of Sked", a.Spec.Type)}
	}
	return ex.Execute(ctx, a)
}

// HTTPExecutor runs http and https actions with one shared client. The zero
// value is not usable: use NewHTTPExecutor.
type HTTPExecutor struct {
	client *http.Client
	// Observe, when not nil, is called after every request with its
	// duration and status code (0 for no answer); for metrics.
	Observe func(d time.Duration, status int)
}

// NewHTTPClient returns the client the engine shares between attempts:
// connections are reused (up to 256 idle per host), redirects are not
// followed (the 3xx is the result), no proxy is used. Timeouts come from
// each attempt's context.
func NewHTTPClient() *http.Client {
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// NewHTTPExecutor returns an executor using client, or NewHTTPClient()
// when client is nil.
func NewHTTPExecutor(client *http.Client) *HTTPExecutor {
	if client == nil {
		client = NewHTTPClient()
	}
	return &HTTPExecutor{client: client}
}

// CloseIdleConnections closes the client's idle connections (at shutdown).
func (h *HTTPExecutor) CloseIdleConnections() { h.client.CloseIdleConnections() }

// Execute sends the request of a and reads at most MaxBodyKept bytes of the
// answer. The whole exchange, body included, is bounded by a.Timeout.
func (h *HTTPExecutor) Execute(ctx context.Context, a *Attempt) Result {
	start := time.Now()
	res := h.execute(ctx, a)
	res.Duration = time.Since(start)
	if h.Observe != nil {
		h.Observe(res.Duration, res.StatusCode)
	}
	return res
}

func (h *HTTPExecutor) execute(ctx context.Context, a *Attempt) Result {
	r := a.Spec.Request
	if r == nil {
		return Result{Message: "the action has no request"}
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URI, body)
	if err != nil {
		return Result{Message: "invalid request: " + err.Error()}
	}
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, "host") {
			req.Host = h.Value
			continue
		}
		req.Header.Set(h.Name, h.Value)
	}
	req.Header.Set(HeaderJobID, fmt.Sprint(a.JobID))
	req.Header.Set(HeaderExpectedTime, a.ExpectedTime.UTC().Format(time.RFC3339Nano))
	req.Header.Set(HeaderExecutionTag, fmt.Sprint(a.AttemptID))
	req.Header.Set(HeaderIdempotencyKey, a.IdempotencyKey())
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "Sked-Scheduler")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return Result{Message: describeError(ctx, err, timeout)}
	}
	defer resp.Body.Close()
	buf := make([]byte, MaxBodyKept)
	n, rerr := io.ReadFull(resp.Body, buf)
	if rerr == nil {
		// Let a modest remainder go so that the connection is reused.
		_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	}
	msg := fmt.Sprintf("HTTP %s", resp.Status)
	if n > 0 {
		msg += "\n" + string(buf[:n])
	}
	if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
		msg += "\n(reading the body: " + describeError(ctx, rerr, timeout) + ")"
	}
	return Result{Succeeded: resp.StatusCode >= 200 && resp.StatusCode < 300, StatusCode: resp.StatusCode, Message: msg}
}

// describeError turns a request error into a history message.
func describeError(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s", timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return "interrupted: the instance is shutting down"
	}
	return "request failed: " + err.Error()
}
