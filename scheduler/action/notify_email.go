package action

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	mail "github.com/wneessen/go-mail"

	"sked/models/notifydef"
)

// sendEmail sends ev as a plain-text mail over SMTP with go-mail. The
// connection is dialled through the Guard; with security "tls" it is TLS
// from the first byte, with "starttls" STARTTLS is required, with "none"
// it stays plain. A user and password authenticate with the best
// mechanism the server offers.
func (n *Notifier) sendEmail(ctx context.Context, ch *notifydef.Channel, ev *notifydef.Event) SendResult {
	e := ch.Email
	if e == nil {
		return SendResult{Error: "the email channel has no SMTP settings"}
	}
	msg := mail.NewMsg()
	if err := msg.From(e.From); err != nil {
		return SendResult{Error: "from: " + err.Error()}
	}
	if err := msg.To(e.To...); err != nil {
		return SendResult{Error: "to: " + err.Error()}
	}
	msg.Subject("[Sked] " + ev.Title())
	msg.SetDate()
	msg.SetMessageID()
	msg.SetGenHeader("X-Sked-Event-Id", ev.ID)
	msg.SetBodyString(mail.TypeTextPlain, emailBody(ev))

	tlsConf := &tls.Config{ServerName: e.Host, RootCAs: n.roots, MinVersion: tls.VersionTLS12}
	opts := []mail.Option{
		mail.WithPort(e.Port),
		mail.WithTimeout(NotifyTimeout),
		mail.WithTLSConfig(tlsConf),
		mail.WithDialContextFunc(n.smtpDialer(e.Security == notifydef.TLS, tlsConf)),
	}
	switch e.Security {
	case notifydef.NoTLS, notifydef.TLS:
		// With TLS the dialer already wraps the connection.
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if e.User != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(e.User), mail.WithPassword(e.Password))
	}
	client, err := mail.NewClient(e.Host, opts...)
	if err != nil {
		return SendResult{Error: "SMTP client: " + err.Error()}
	}
	red := &redactor{}
	red.add(e.Password)
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return SendResult{Answer: red.apply(msg.ServerResponse()), Error: red.apply(describeSMTPError(ctx, err))}
	}
	// A delivered mail got 250 to its DATA; go-mail keeps the text after
	// the code.
	answer := "250 " + msg.ServerResponse()
	return SendResult{Delivered: true, Answer: red.apply(answer)}
}

// smtpDialer returns go-mail's dial function: the Guard's dialer, and
// with implicit TLS a handshake on top.
func (n *Notifier) smtpDialer(implicitTLS bool, conf *tls.Config) mail.DialContextFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := n.guard.Dialer().DialContext(ctx, network, address)
		if err != nil || !implicitTLS {
			return conn, err
		}
		tc := tls.Client(conn, conf)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		return tc, nil
	}
}

// describeSMTPError turns a send error into the result's message, with
// the Guard's refusal as it reads.
func describeSMTPError(ctx context.Context, err error) string {
	if r := asRefused(err); r != nil {
		return r.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s", NotifyTimeout)
	}
	return "SMTP: " + err.Error()
}

// emailBody is the plain-text mail of ev.
func emailBody(ev *notifydef.Event) string {
	var b strings.Builder
	b.WriteString(ev.Title() + "\n\n")
	if m := ev.Message(); m != "" {
		b.WriteString(m + "\n\n")
	}
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-12s %s\n", k+":", v)
		}
	}
	line("Event", string(ev.Type))
	line("Workspace", ev.Workspace)
	line("Job", ev.JobPath())
	line("Time", ev.Time.UTC().Format(time.RFC3339))
	if o := ev.Occurrence; o != nil {
		line("Occurrence", o.ExpectedTime.UTC().Format(time.RFC3339))
	}
	if a := ev.Attempt; a != nil {
		line("Attempt", fmt.Sprintf("%s %s (retry %d)", a.Action, a.Status, a.RetryCount))
	}
	if ev.Count > 1 {
		line("Count", fmt.Sprint(ev.Count))
	}
	line("Open", ev.URL)
	b.WriteString("\n-- \nSent by Sked. Event id " + ev.ID + "\n")
	return b.String()
}
