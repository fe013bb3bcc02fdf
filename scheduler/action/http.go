package action

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"sked/models/jobdef"
)

// Headers Sked adds to every HTTP request (SPEC §5).
const (
	HeaderJobID          = "x-ms-scheduler-jobid"
	HeaderExpectedTime   = "x-ms-scheduler-expected-execution-time"
	HeaderExecutionTag   = "x-ms-scheduler-execution-tag"
	HeaderIdempotencyKey = "Idempotency-Key"
)

// userAgent is sent when the action does not set a User-Agent.
const userAgent = "Sked-Scheduler"

// HTTPExecutor runs http and https actions, with their authentication:
// basic (an Authorization header), clientCertificate (a TLS client
// certificate; one client per certificate) and activeDirectoryOAuth (a
// bearer token from the configured authority, cached). Every connection,
// the authority's included, goes through the Guard. Build it with
// NewDispatcher.
type HTTPExecutor struct {
	client *http.Client
	certs  *certClients
	tokens *tokenSource
	// Observe, when not nil, is called after every request with its
	// duration and status code (0 for no answer); for metrics. Set it
	// before the first attempt.
	Observe func(d time.Duration, status int)
}

// CloseIdleConnections closes the idle connections of the executor's
// clients, the shared one (which the storage queue and Service Bus
// executors of the same Dispatcher use too) and the certificate ones.
func (h *HTTPExecutor) CloseIdleConnections() {
	h.client.CloseIdleConnections()
	h.certs.closeIdle()
}

// Execute sends the request of a and reads at most MaxBodyKept bytes of the
// answer. The whole exchange, the token request and the body included, is
// bounded by a.Timeout.
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
	ctx, cancel, timeout := attemptContext(ctx, a)
	defer cancel()
	red := &redactor{}
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
	setSkedHeaders(req, a)
	if len(a.SigningSecrets) > 0 {
		red.add(a.SigningSecrets...)
		sig, err := signWebhook(a.SigningSecrets, a.IdempotencyKey(), time.Now(), []byte(r.Body))
		if err != nil {
			return Result{Message: "signing the request: " + err.Error()}
		}
		for k, v := range sig {
			req.Header[k] = v
		}
	}
	client := h.client
	if au := r.Authentication; au != nil {
		c, err := h.authenticate(ctx, req, au, timeout, red)
		if err != nil {
			return Result{Message: red.apply(err.Error())}
		}
		if c != nil {
			client = c
		}
	}
	res := send(ctx, client, req, timeout, red)
	if res.Exchange != nil && client != h.client {
		res.Exchange.Request.ClientCertificate = true
	}
	return res
}

// authenticate applies au to req. It returns the client to send req with
// when the authentication needs its own (a client certificate), and
// registers au's secrets with red.
func (h *HTTPExecutor) authenticate(ctx context.Context, req *http.Request, au *jobdef.Authentication, timeout time.Duration, red *redactor) (*http.Client, error) {
	switch au.Kind {
	case jobdef.AuthBasic:
		red.add(au.Password)
		req.SetBasicAuth(au.Username, au.Password)
		red.add(strings.TrimPrefix(req.Header.Get("Authorization"), "Basic "))
		return nil, nil
	case jobdef.AuthClientCertificate:
		red.add(au.Pfx, au.Password)
		return h.certs.get(au.Pfx, au.Password)
	case jobdef.AuthActiveDirectory:
		red.add(au.Secret)
		red.addEncoded(au.Secret)
		token, err := h.tokens.token(ctx, au, timeout)
		if err != nil {
			return nil, err
		}
		red.add(token)
		req.Header.Set("Authorization", "Bearer "+token)
		return nil, nil
	}
	return nil, fmt.Errorf("authentication type %q is not supported", au.Kind)
}

// setSkedHeaders sets the headers Sked adds to every HTTP request, and a
// User-Agent when there is none.
func setSkedHeaders(req *http.Request, a *Attempt) {
	req.Header.Set(HeaderJobID, fmt.Sprint(a.JobID))
	req.Header.Set(HeaderExpectedTime, a.ExpectedTime.UTC().Format(time.RFC3339Nano))
	req.Header.Set(HeaderExecutionTag, fmt.Sprint(a.AttemptID))
	req.Header.Set(HeaderIdempotencyKey, a.IdempotencyKey())
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}
}
