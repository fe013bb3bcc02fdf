package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"sked/models"
	"sked/scheduler/catalog"
)

// documentedVerify is the Go verification example of docs/notifications.md ("Receiving a
// Sked webhook"), copied as it is documented: the test checks that a
// target following the documentation accepts Sked's signed job requests.
func documentedVerify(secret string, h http.Header, body []byte) bool {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false // missing, or a replay
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", h.Get("webhook-id"), ts, body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// signedRequest is what the signing test's target received.
type signedRequest struct {
	header http.Header
	body   []byte
}

// signingTarget is a loopback target that hands each request it receives
// (headers and body) to got, buffered for one; closed when the test ends.
func signingTarget(t *testing.T) (*httptest.Server, chan signedRequest) {
	got := make(chan signedRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- signedRequest{r.Header.Clone(), b}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// runSigned creates the job name POSTing body to base/name, runs what is
// due and returns the request the target received (failing the test when
// none came).
func (e *env) runSigned(t *testing.T, base string, got chan signedRequest, name, body string) signedRequest {
	t.Helper()
	def, _ := json.Marshal(map[string]any{"action": map[string]any{"type": "Http",
		"request": map[string]any{"uri": base + "/" + name, "method": "POST", "body": body}}})
	e.put(name, string(def))
	e.drain()
	select {
	case r := <-got:
		return r
	default:
		t.Fatalf("job %s sent no request", name)
		return signedRequest{}
	}
}

// TestEngineSignsRequestsOfSigningCollections runs jobs with a real engine
// against a target that verifies Standard Webhooks signatures: unsigned
// before the collection has a signing secret; signed with webhook-id =
// Idempotency-Key once it has one (the documented code and the
// standard-webhooks library accept it, a tampered body fails); signed
// with both secrets while a rotation overlaps; only the new one after the
// overlap; unsigned again once the secret is removed.
func TestEngineSignsRequestsOfSigningCollections(t *testing.T) {
	srv, got := signingTarget(t)
	e := newEnv(t, nil)
	cat := catalog.New(e.store, nil)
	ref := models.CollectionRef{WorkspaceID: models.DefaultWorkspaceID, ResourceGroup: "rg", Name: e.coll.Name}
	run := func(name string) signedRequest {
		t.Helper()
		return e.runSigned(t, srv.URL, got, name, `{"report":"nightly"}`)
	}
	verifies := func(secret string, r signedRequest) bool {
		t.Helper()
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		lib := wh.Verify(r.body, r.header) == nil
		if readme := documentedVerify(secret, r.header, r.body); readme != lib {
			t.Errorf("the documented code says %v, the standard-webhooks library %v", readme, lib)
		}
		return lib
	}

	if r := run("before"); r.header.Get("webhook-signature") != "" || r.header.Get("webhook-id") != "" {
		t.Errorf("a collection without a secret signs: %v", r.header)
	}

	first, err := cat.NewSigningSecret(e.ctx, catalog.System("test"), ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.Rotated || !strings.HasPrefix(first.Secret, "whsec_") {
		t.Fatalf("new secret %+v", first)
	}
	r := run("signed")
	if id := r.header.Get("webhook-id"); id == "" || id != r.header.Get("Idempotency-Key") {
		t.Errorf("webhook-id %q, Idempotency-Key %q", id, r.header.Get("Idempotency-Key"))
	}
	if !verifies(first.Secret, r) {
		t.Errorf("the signed request does not verify: %v", r.header)
	}
	tampered := signedRequest{r.header, []byte(strings.Replace(string(r.body), "nightly", "weekly", 1))}
	if verifies(first.Secret, tampered) {
		t.Error("a tampered body verifies")
	}

	second, err := cat.NewSigningSecret(e.ctx, catalog.System("test"), ref, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Rotated || second.PreviousUntil == nil || second.Secret == first.Secret {
		t.Fatalf("rotation %+v", second)
	}
	r = run("rotating")
	if !verifies(first.Secret, r) || !verifies(second.Secret, r) {
		t.Errorf("during the overlap both secrets must verify: %v", r.header)
	}

	e.clock.Add(2 * time.Hour) // past the overlap
	r = run("rotated")
	if !verifies(second.Secret, r) || verifies(first.Secret, r) {
		t.Errorf("after the overlap only the new secret verifies: %v", r.header)
	}

	if err := cat.RemoveSigningSecret(e.ctx, catalog.System("test"), ref); err != nil {
		t.Fatal(err)
	}
	if r := run("after"); r.header.Get("webhook-signature") != "" {
		t.Errorf("a removed secret still signs: %v", r.header)
	}
	if err := cat.RemoveSigningSecret(e.ctx, catalog.System("test"), ref); err == nil {
		t.Error("removing a missing secret succeeds")
	}
}
