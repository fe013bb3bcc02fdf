package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestFavicon checks that every page links the favicon and that it is
// served (browsers logged a 404 for /favicon.ico on every page load).
func TestFavicon(t *testing.T) {
	a := newApp(t, false)
	r := a.get("/setup")
	href, ok := r.doc.Find(`link[rel="icon"]`).Attr("href")
	if !ok || !strings.HasPrefix(href, "/static/img/favicon.svg") {
		t.Fatalf("icon link %q", href)
	}
	icon := a.get(href)
	wantStatus(t, icon, http.StatusOK)
	if ct := icon.Header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("favicon Content-Type %q", ct)
	}
}
