package handlers_test

import "net/http"

// csrfWith fetches path with client and returns the CSRF token of its
// page.
func (a *app) csrfWith(client *http.Client, path string) string {
	a.t.Helper()
	r := a.do(client, http.MethodGet, path, nil, nil)
	tok, ok := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	if !ok || tok == "" {
		a.t.Fatalf("GET %s: no csrf-token meta tag (status %d)", path, r.StatusCode)
	}
	return tok
}
