package handlers_test

import (
	"net/http"
	"os"
	"testing"
)

// TestOpenAPIDocumentServed checks GET /api/openapi.json: open without a
// token or session, the document's bytes as JSON with the security
// headers of every answer, cacheable and revalidated by its ETag; and its
// schemas compile as JSON Schema 2020-12.
func TestOpenAPIDocumentServed(t *testing.T) {
	a := newApp(t, false)
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	r := a.get("/api/openapi.json")
	wantStatus(t, r, http.StatusOK)
	if r.body != string(want) {
		t.Error("the answer is not openapi.json")
	}
	for h, v := range map[string]string{
		"Content-Type":           "application/json",
		"Cache-Control":          "public, max-age=300",
		"X-Content-Type-Options": "nosniff",
	} {
		if got := r.Header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	if r.Header.Get("Content-Security-Policy") == "" {
		t.Error("no Content-Security-Policy")
	}
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	again := a.do(a.client, http.MethodGet, "/api/openapi.json", nil, http.Header{"If-None-Match": {etag}})
	wantStatus(t, again, http.StatusNotModified)
	if again.body != "" {
		t.Errorf("304 with a body: %.100s", again.body)
	}
	stale := a.do(a.client, http.MethodGet, "/api/openapi.json", nil, http.Header{"If-None-Match": {`"old"`}})
	wantStatus(t, stale, http.StatusOK)

	s, err := loadAPISpec()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ops) < 40 {
		t.Errorf("the document has %d operations", len(s.ops))
	}
}
