package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// MaxBodyKept is how many bytes of a response body are kept for the
// history message (SPEC §4).
const MaxBodyKept = 2048

// drainLimit is how much more of a response body is read (and dropped) so
// that the connection can be reused; a longer body closes the connection.
const drainLimit = 64 << 10

// DefaultTimeout bounds an attempt whose Timeout is zero (SPEC §4).
const DefaultTimeout = 60 * time.Second

// send sends req with client and turns the answer into a Result: a 2xx is
// a success, the message is the status and the first MaxBodyKept bytes of
// the body, with the secrets of red removed. ctx is req's context, bounded
// by timeout.
func send(ctx context.Context, client *http.Client, req *http.Request, timeout time.Duration, red *redactor) Result {
	x := captureRequest(req, red)
	resp, err := client.Do(req)
	if err != nil {
		return Result{Message: red.apply(describeError(ctx, err, timeout)), Exchange: x}
	}
	defer resp.Body.Close()
	// Read a little more than is kept, so that a secret cut by the limit
	// is still recognised and removed whole.
	buf := make([]byte, MaxBodyKept+red.maxLen())
	n, rerr := io.ReadFull(resp.Body, buf)
	if rerr == nil {
		// Let a modest remainder go so that the connection is reused.
		_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	}
	msg := red.apply("HTTP " + resp.Status)
	kept := red.applyPrefix(string(buf[:n]), MaxBodyKept)
	if n > 0 {
		msg += "\n" + kept
	}
	if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
		msg += "\n(reading the body: " + red.apply(describeError(ctx, rerr, timeout)) + ")"
	}
	x.Response = captureResponse(resp, kept, n > MaxBodyKept || rerr == nil, red)
	return Result{Succeeded: resp.StatusCode >= 200 && resp.StatusCode < 300, StatusCode: resp.StatusCode, Message: msg, Exchange: x}
}

// describeError turns a request error into a history message. The URL of
// the request is left out (it may carry a SAS token).
func describeError(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s", timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return "interrupted: the instance is shutting down"
	}
	if r := asRefused(err); r != nil {
		return r.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "request failed: " + err.Error()
}

// attemptContext returns ctx bounded by the attempt's timeout (DefaultTimeout
// when zero) and that timeout.
func attemptContext(ctx context.Context, a *Attempt) (context.Context, context.CancelFunc, time.Duration) {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, timeout
}
