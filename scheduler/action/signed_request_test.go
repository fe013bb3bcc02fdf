package action

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestSignedJobRequest checks that an attempt with signing secrets sends
// the Standard Webhooks headers with webhook-id = Idempotency-Key, which
// the official library verifies with either secret (rotation overlap),
// and that an attempt without secrets sends none.
func TestSignedJobRequest(t *testing.T) {
	oldSecret, _ := NewWebhookSecret()
	newSecret, _ := NewWebhookSecret()
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer srv.Close()
	d := newTestDispatcher(t, Config{})
	a := attempt(httpAction(srv.URL+"/run", http.MethodPost, `{"report":"nightly"}`, nil), 5*time.Second)
	a.SigningSecrets = []string{newSecret, oldSecret}
	if res := d.Execute(context.Background(), a); !res.Succeeded {
		t.Fatalf("execute: %+v", res)
	}
	r, body := <-got, <-bodies
	if r.Header.Get("webhook-id") != r.Header.Get(HeaderIdempotencyKey) || r.Header.Get("webhook-id") == "" {
		t.Errorf("webhook-id %q, Idempotency-Key %q", r.Header.Get("webhook-id"), r.Header.Get(HeaderIdempotencyKey))
	}
	for _, secret := range []string{newSecret, oldSecret} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, r.Header); err != nil {
			t.Errorf("verify with one of the secrets: %v", err)
		}
		if err := wh.Verify([]byte(strings.Replace(string(body), "nightly", "weekly", 1)), r.Header); err == nil {
			t.Error("a tampered body verifies")
		}
	}
	a.SigningSecrets = nil
	if res := d.Execute(context.Background(), a); !res.Succeeded {
		t.Fatalf("execute unsigned: %+v", res)
	}
	if r := <-got; r.Header.Get("webhook-signature") != "" {
		t.Errorf("an unsigned attempt carries %q", r.Header.Get("webhook-signature"))
	}
	<-bodies
}
