package handlers_test

import (
	"database/sql"
	"net/http"
	"testing"
)

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

// openDB opens the app's database directly, closed with the test.
func openDB(t *testing.T, a *app) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
