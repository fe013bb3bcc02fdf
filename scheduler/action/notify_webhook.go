package action

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"sked/models/notifydef"
)

// webhookSecretPrefix starts every Standard Webhooks secret.
const webhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a new signing secret: "whsec_" and the base64
// of 32 random bytes, as the Standard Webhooks specification has it.
func NewWebhookSecret() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("action: new webhook secret: %w", err)
	}
	return webhookSecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// SignWebhook returns the Standard Webhooks headers of body sent as
// message id at ts, signed with secret ("whsec_…"): webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature
// ("v1," and the base64 HMAC-SHA256 of "id.timestamp.body").
func SignWebhook(secret, id string, ts time.Time, body []byte) (http.Header, error) {
	return signWebhook([]string{secret}, id, ts, body)
}

// signWebhook is SignWebhook with one signature per secret, separated by
// spaces in webhook-signature as the specification allows.
func signWebhook(secrets []string, id string, ts time.Time, body []byte) (http.Header, error) {
	stamp := strconv.FormatInt(ts.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, webhookSecretPrefix))
		if err != nil || len(key) == 0 {
			return nil, errors.New("action: sign webhook: the signing secret is not whsec_ and base64")
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + stamp + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", stamp)
	h.Set("webhook-signature", strings.Join(sigs, " "))
	return h, nil
}

// sendWebhook posts the event JSON to a webhook channel, signed with its
// secret; webhook-id is the event's id.
func (n *Notifier) sendWebhook(ctx context.Context, ch *notifydef.Channel, ev *notifydef.Event) SendResult {
	body, err := json.Marshal(ev)
	if err != nil {
		return SendResult{Error: "the event cannot be written as JSON: " + err.Error()}
	}
	if ch.SigningSecret == "" {
		return SendResult{Error: "the webhook channel has no signing secret"}
	}
	h, err := SignWebhook(ch.SigningSecret, ev.ID, n.now(), body)
	if err != nil {
		return SendResult{Error: err.Error()}
	}
	return n.postJSON(ctx, ch.URL, h, body, ch.SigningSecret)
}
