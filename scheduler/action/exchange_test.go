package action

import (
	"net/http"
	"strings"
	"testing"

	"sked/models"
)

func TestCaptureRequestMasksAndCaps(t *testing.T) {
	body := strings.Repeat("é", models.MaxDetailRequestBody) // two bytes each: cut on a rune boundary
	req, err := http.NewRequest(http.MethodPost, "https://ada:pw-secret@example.com/p?code=c-secret&api_key=k-secret&q=1", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer token-secret")
	req.Header.Set("Webhook-Signature", "v1,sig-secret")
	req.Header.Set(HeaderIdempotencyKey, "7:2026")
	req.Header.Set("X-Note", "mentions registered-secret here")
	req.Header.Set("Z-Big", strings.Repeat("h", models.MaxDetailHeaders))
	red := &redactor{}
	red.add("registered-secret")
	x := captureRequest(req, red)
	r := x.Request
	if strings.Contains(r.URL, "pw-secret") || strings.Contains(r.URL, "c-secret") || strings.Contains(r.URL, "k-secret") || !strings.Contains(r.URL, "q=1") {
		t.Errorf("URL %q", r.URL)
	}
	got := map[string]string{}
	for _, h := range r.Headers {
		got[h.Name] = h.Value
	}
	want := map[string]string{"Authorization": "Bearer [masked]", "Webhook-Signature": "[masked]", HeaderIdempotencyKey: "7:2026",
		"X-Note": "mentions [redacted] here"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("header %s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["Z-Big"]; ok || !r.HeadersTruncated {
		t.Errorf("headers over the cap kept: truncated %v", r.HeadersTruncated)
	}
	if !r.BodyTruncated || len(r.Body) > models.MaxDetailRequestBody || !strings.HasPrefix(body, r.Body) {
		t.Errorf("body %d bytes, truncated %v", len(r.Body), r.BodyTruncated)
	}
	if x.IdempotencyKey != "7:2026" {
		t.Errorf("key %q", x.IdempotencyKey)
	}
}
