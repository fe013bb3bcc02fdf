package action

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"time"

	"sked/models/notifydef"
)

// NotifyTimeout bounds one send of a notification when ctx has no
// earlier deadline.
const NotifyTimeout = 30 * time.Second

// Notifier sends notifications to channels (SPEC §13.3): a signed POST to
// a webhook, a message to Slack or Teams, a mail over SMTP. Every
// connection goes through the same outbound Guard as the actions
// (--allow-targets). A send is one try: retrying is the engine's work.
// Create it with NewNotifier; it is safe for concurrent use.
type Notifier struct {
	guard  *Guard
	client *http.Client
	roots  *x509.CertPool
	now    func() time.Time
}

// NewNotifier returns a Notifier whose connections obey cfg's
// AllowTargets and trust cfg's RootCAs (nil: the system's); endpoints of
// cfg are not used.
func NewNotifier(cfg Config) *Notifier {
	guard := NewGuard(cfg.AllowTargets)
	return &Notifier{guard: guard, client: newClient(newTransport(guard, cfg.RootCAs, nil)), roots: cfg.RootCAs, now: time.Now}
}

// CloseIdleConnections closes the notifier's idle HTTP connections.
func (n *Notifier) CloseIdleConnections() { n.client.CloseIdleConnections() }

// SendResult is the outcome of one send.
type SendResult struct {
	// Delivered says that the channel accepted the notification (a 2xx
	// answer, or the SMTP server accepted the mail).
	Delivered bool
	// StatusCode is the HTTP status; 0 for email or when there was no
	// answer.
	StatusCode int
	// Answer is what the peer said: "HTTP 200 OK" and the start of the
	// body, or the SMTP server's last reply. It never holds the channel's
	// secrets.
	Answer string
	// Error says what went wrong; "" when delivered.
	Error string
	// Duration is how long the send took.
	Duration time.Duration
}

// Send sends ev to ch once and reports the outcome; it never panics on a
// bad channel, which is reported in the result.
func (n *Notifier) Send(ctx context.Context, ch *notifydef.Channel, ev *notifydef.Event) SendResult {
	start := n.now()
	ctx, cancel := context.WithTimeout(ctx, NotifyTimeout)
	defer cancel()
	var r SendResult
	switch ch.Type {
	case notifydef.Webhook:
		r = n.sendWebhook(ctx, ch, ev)
	case notifydef.Slack:
		r = n.postJSON(ctx, ch.URL, nil, slackMessage(ev), ch.URL)
	case notifydef.Teams:
		r = n.postJSON(ctx, ch.URL, nil, teamsMessage(ev), ch.URL)
	case notifydef.Email:
		r = n.sendEmail(ctx, ch, ev)
	default:
		r = SendResult{Error: fmt.Sprintf("channel type %q is not supported by this version of Sked", ch.Type)}
	}
	r.Duration = n.now().Sub(start)
	return r
}

// postJSON posts body to url with the extra headers and turns the answer
// into a SendResult; the secrets never appear in it.
func (n *Notifier) postJSON(ctx context.Context, url string, headers http.Header, body []byte, secrets ...string) SendResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return SendResult{Error: "the channel's URL is not usable"}
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Sked")
	red := &redactor{}
	red.add(secrets...)
	res := send(ctx, n.client, req, NotifyTimeout, red)
	out := SendResult{Delivered: res.Succeeded, StatusCode: res.StatusCode}
	if res.StatusCode != 0 {
		out.Answer = res.Message
		if !res.Succeeded {
			out.Error = fmt.Sprintf("the channel answered HTTP %d", res.StatusCode)
		}
	} else {
		out.Error = res.Message
	}
	return out
}
