package action

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"sked/models/notifydef"
)

// testEvent is an occurrenceFaulted event of rg/jc/nightly.
func testEvent() *notifydef.Event {
	start := time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC)
	return &notifydef.Event{Type: notifydef.OccurrenceFaulted, ID: "evt_123", Time: start.Add(time.Second),
		Workspace: "default", ResourceGroup: "rg", Collection: "jc", Job: "nightly",
		URL:        "https://sked.example.com/c/default/rg/jc/jobs/nightly",
		Occurrence: &notifydef.Occurrence{ExpectedTime: start.Add(-time.Second), RepeatCount: 4},
		Attempt: &notifydef.Attempt{Action: "MainAction", Status: "failed", RetryCount: 3,
			Message: "HTTP 500 Internal Server Error\n<boom>", StartTime: &start},
		JobInfo: &notifydef.JobInfo{State: "enabled", Description: "Nightly report"}}
}

// newTestNotifier returns a Notifier allowed to reach loopback.
func newTestNotifier(t *testing.T, roots *x509.CertPool) *Notifier {
	t.Helper()
	n := NewNotifier(Config{AllowTargets: loopback, RootCAs: roots})
	t.Cleanup(n.CloseIdleConnections)
	return n
}

func TestNotifyWebhookSignature(t *testing.T) {
	secret, err := NewWebhookSecret()
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q %v", secret, err)
	}
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	type received struct {
		header http.Header
		body   []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(body, r.Header); err != nil {
			http.Error(w, "bad signature: "+err.Error(), http.StatusUnauthorized)
			return
		}
		got <- received{r.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	n := newTestNotifier(t, nil)
	ch := &notifydef.Channel{Type: notifydef.Webhook, URL: srv.URL + "/hook", SigningSecret: secret}
	res := n.Send(context.Background(), ch, testEvent())
	if !res.Delivered || res.StatusCode != http.StatusNoContent || res.Error != "" {
		t.Fatalf("send: %+v", res)
	}
	r := <-got
	if r.header.Get("webhook-id") != "evt_123" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", r.header)
	}
	var ev map[string]any
	if err := json.Unmarshal(r.body, &ev); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"type", "id", "time", "workspace", "resourceGroup", "collection", "job", "url", "occurrence", "attempt", "jobInfo"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("event JSON lacks %q: %s", k, r.body)
		}
	}

	// The official library rejects a tampered body and an old timestamp.
	if err := verifier.Verify(append(r.body[:len(r.body)-1:len(r.body)-1], ' ', '}'), r.header); err == nil {
		t.Error("a tampered body verifies")
	}
	old, err := SignWebhook(secret, "evt_123", time.Now().Add(-6*time.Minute), r.body)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifier.Verify(r.body, old); err == nil {
		t.Error("a signature older than 5 minutes verifies")
	}
	// A wrong secret: the receiver answers 401, which is not delivered.
	other, _ := NewWebhookSecret()
	ch.SigningSecret = other
	res = n.Send(context.Background(), ch, testEvent())
	if res.Delivered || res.StatusCode != http.StatusUnauthorized || !strings.Contains(res.Error, "401") || strings.Contains(res.Answer+res.Error, other) {
		t.Errorf("wrong secret: %+v", res)
	}
}

func TestNotifyRefusedTarget(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the guard let a loopback request through")
	}))
	defer srv.Close()
	n := NewNotifier(Config{})
	secret, _ := NewWebhookSecret()
	for _, ch := range []*notifydef.Channel{
		{Type: notifydef.Webhook, URL: srv.URL, SigningSecret: secret},
		{Type: notifydef.Slack, URL: srv.URL + "/services/T/B/secret"},
		{Type: notifydef.Email, Email: &notifydef.EmailConfig{Host: "127.0.0.1", Port: 2525, Security: notifydef.NoTLS,
			From: "sked@example.com", To: []string{"ops@example.com"}}},
	} {
		res := n.Send(context.Background(), ch, testEvent())
		if res.Delivered || !strings.Contains(res.Error, "refused to connect to 127.0.0.1") || !strings.Contains(res.Error, "--allow-targets") {
			t.Errorf("%s: %+v", ch.Type, res)
		}
		if strings.Contains(res.Error, "secret") {
			t.Errorf("%s: the error shows the URL: %s", ch.Type, res.Error)
		}
	}
}

func TestNotifySlackAndTeams(t *testing.T) {
	var mu sync.Mutex
	bodies := map[string]map[string]any{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, "not JSON", http.StatusBadRequest)
			return
		}
		mu.Lock()
		bodies[r.URL.Path] = v
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	n := newTestNotifier(t, nil)
	for _, typ := range []notifydef.ChannelType{notifydef.Slack, notifydef.Teams} {
		res := n.Send(context.Background(), &notifydef.Channel{Type: typ, URL: srv.URL + "/" + string(typ)}, testEvent())
		if !res.Delivered || res.StatusCode != 200 || !strings.Contains(res.Answer, "ok") {
			t.Errorf("%s: %+v", typ, res)
		}
	}
	slack := marshalUnescaped(t, bodies["/slack"])
	for _, want := range []string{`"text":"rg/jc/nightly: an occurrence faulted"`,
		`<https://sked.example.com/c/default/rg/jc/jobs/nightly|rg/jc/nightly: an occurrence faulted>`,
		`>HTTP 500 Internal Server Error\n>&lt;boom&gt;`, `occurrenceFaulted`} {
		if !strings.Contains(string(slack), want) {
			t.Errorf("slack message lacks %s:\n%s", want, slack)
		}
	}
	teams := marshalUnescaped(t, bodies["/teams"])
	for _, want := range []string{`"type":"message"`, `"contentType":"application/vnd.microsoft.card.adaptive"`,
		`"type":"AdaptiveCard"`, `"text":"rg/jc/nightly: an occurrence faulted"`, `"Action.OpenUrl"`,
		`"url":"https://sked.example.com/c/default/rg/jc/jobs/nightly"`, `HTTP 500 Internal Server Error`} {
		if !strings.Contains(string(teams), want) {
			t.Errorf("teams message lacks %s:\n%s", want, teams)
		}
	}
}

// mailBackend is a go-smtp backend that keeps the mails it receives and
// accepts one user.
type mailBackend struct {
	mu    sync.Mutex
	mails []receivedMail
	user  string
	pass  string
}

type receivedMail struct {
	from string
	to   []string
	data string
	tls  bool
	auth string
}

func (b *mailBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	return &mailSession{b: b, m: receivedMail{tls: isTLS}, conn: c}, nil
}

type mailSession struct {
	b    *mailBackend
	m    receivedMail
	conn *smtp.Conn
}

func (s *mailSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *mailSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.b.user || pass != s.b.pass {
			return errors.New("invalid credentials")
		}
		s.m.auth = user
		return nil
	}), nil
}

func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.b.user != "" && s.m.auth == "" {
		return smtp.ErrAuthRequired
	}
	s.m.from = from
	return nil
}

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.m.to = append(s.m.to, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.data = string(b)
	if _, isTLS := s.conn.TLSConnectionState(); isTLS {
		s.m.tls = true
	}
	s.b.mu.Lock()
	s.b.mails = append(s.b.mails, s.m)
	s.b.mu.Unlock()
	return nil
}

func (s *mailSession) Reset()        {}
func (s *mailSession) Logout() error { return nil }

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sked test SMTP"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// startSMTP starts a go-smtp server on loopback: with conf it offers
// STARTTLS, or with implicit speaks TLS from the first byte. It returns
// the port.
func startSMTP(t *testing.T, be *mailBackend, conf *tls.Config, implicit bool) int {
	t.Helper()
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.AllowInsecureAuth = conf == nil
	var l net.Listener
	var err error
	if implicit {
		l, err = tls.Listen("tcp", "127.0.0.1:0", conf)
	} else {
		s.TLSConfig = conf
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func TestNotifyEmail(t *testing.T) {
	cert, pool := selfSigned(t)
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	tests := []struct {
		name     string
		security notifydef.Security
		conf     *tls.Config
		implicit bool
		user     string
		wantTLS  bool
	}{
		{"starttls with auth", notifydef.StartTLS, conf, false, "sked", true},
		{"implicit tls", notifydef.TLS, conf, true, "", true},
		{"plain", notifydef.NoTLS, nil, false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &mailBackend{user: tt.user, pass: "s3cret-pass"}
			port := startSMTP(t, be, tt.conf, tt.implicit)
			n := newTestNotifier(t, pool)
			ch := &notifydef.Channel{Type: notifydef.Email, Email: &notifydef.EmailConfig{Host: "127.0.0.1", Port: port,
				Security: tt.security, User: tt.user, From: "Sked <sked@example.com>", To: []string{"ops@example.com", "oncall@example.com"}}}
			if tt.user != "" {
				ch.Email.Password = "s3cret-pass"
			}
			res := n.Send(context.Background(), ch, testEvent())
			if !res.Delivered || res.Error != "" || !strings.HasPrefix(res.Answer, "250") {
				t.Fatalf("send: %+v", res)
			}
			be.mu.Lock()
			defer be.mu.Unlock()
			if len(be.mails) != 1 {
				t.Fatalf("received %d mails", len(be.mails))
			}
			m := be.mails[0]
			if m.from != "sked@example.com" || strings.Join(m.to, ",") != "ops@example.com,oncall@example.com" || m.tls != tt.wantTLS || m.auth != tt.user {
				t.Errorf("mail %+v", m)
			}
			for _, want := range []string{"Subject: [Sked] rg/jc/nightly: an occurrence faulted", "HTTP 500 Internal Server Error",
				"https://sked.example.com/c/default/rg/jc/jobs/nightly", "X-Sked-Event-Id: evt_123"} {
				if !strings.Contains(m.data, want) {
					t.Errorf("mail lacks %q:\n%s", want, m.data)
				}
			}
		})
	}
	t.Run("wrong password", func(t *testing.T) {
		be := &mailBackend{user: "sked", pass: "right"}
		port := startSMTP(t, be, conf, false)
		n := newTestNotifier(t, pool)
		res := n.Send(context.Background(), &notifydef.Channel{Type: notifydef.Email, Email: &notifydef.EmailConfig{
			Host: "127.0.0.1", Port: port, Security: notifydef.StartTLS, User: "sked", Password: "wrong-one",
			From: "sked@example.com", To: []string{"ops@example.com"}}}, testEvent())
		if res.Delivered || res.Error == "" || strings.Contains(res.Error+res.Answer, "wrong-one") {
			t.Errorf("wrong password: %+v", res)
		}
	})
	t.Run("starttls required", func(t *testing.T) {
		be := &mailBackend{}
		port := startSMTP(t, be, nil, false)
		n := newTestNotifier(t, pool)
		res := n.Send(context.Background(), &notifydef.Channel{Type: notifydef.Email, Email: &notifydef.EmailConfig{
			Host: "127.0.0.1", Port: port, Security: notifydef.StartTLS, From: "sked@example.com", To: []string{"ops@example.com"}}}, testEvent())
		if res.Delivered || len(be.mails) != 0 {
			t.Errorf("sent without STARTTLS: %+v", res)
		}
	})
}

// TestSignWebhookKnownAnswer checks SignWebhook against the official
// library's own signature.
func TestSignWebhookKnownAnswer(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	want, err := wh.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", ts, body)
	if err != nil {
		t.Fatal(err)
	}
	h, err := SignWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", ts, body)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("webhook-signature"); got != want || h.Get("webhook-timestamp") != strconv.FormatInt(ts.Unix(), 10) {
		t.Errorf("signature %q, want %q", got, want)
	}
}

// marshalUnescaped writes v as JSON without escaping <, > and &.
func marshalUnescaped(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
