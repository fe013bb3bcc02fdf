package handlers_test

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
)

// fakeEngine stands in for the engine in handler tests: the write service
// queues runs with the store's real RunNow, and no engine runs to wake.
type fakeEngine struct {
	store *models.Store
	now   func() time.Time
}

// Wake counts nothing: no engine runs in handler tests.
func (e *fakeEngine) Wake() {}

const apiVersion = "?api-version=2016-03-01"

// rgPath is the collections path of resource group rg in the default
// workspace.
func rgPath(rg string) string {
	return "/subscriptions/default/resourceGroups/" + rg + "/providers/Microsoft.Scheduler/jobCollections"
}

// api sends an API request with the app's token.
func (a *app) api(method, path, body string) *response {
	a.t.Helper()
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	if a.token != "" {
		h.Set("Authorization", "Bearer "+a.token)
	}
	if body == "" {
		return a.do(a.client, method, path, nil, h)
	}
	return a.do(a.client, method, path, nil, h, strings.NewReader(body))
}

// decode unmarshals a response body.
func decode[T any](t *testing.T, r *response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return v
}

// apiErr is the error body of the API.
type apiErr struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// fingerprint digests every row Sked keeps about collections and jobs, to
// assert that a refused request changed nothing.
func (a *app) fingerprint() string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	var out string
	err = db.QueryRow(`SELECT
		coalesce((SELECT md5(string_agg(r::text, '|' ORDER BY r.id)) FROM resource_groups r), '') ||
		coalesce((SELECT md5(string_agg(c::text, '|' ORDER BY c.id)) FROM job_collections c), '') ||
		coalesce((SELECT md5(string_agg(j::text, '|' ORDER BY j.id)) FROM jobs j), '') ||
		coalesce((SELECT md5(string_agg(h::text, '|' ORDER BY h.id)) FROM job_history h), '') ||
		coalesce((SELECT md5(string_agg(x::text, '|' ORDER BY x.id)) FROM job_attempts x), '')`).Scan(&out)
	if err != nil {
		a.t.Fatal(err)
	}
	return out
}

// rawColumn returns a column of the job named name as text.
func (a *app) rawJobColumns(name string) string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	var out string
	if err := db.QueryRow(`SELECT definition::text || coalesce(encode(secrets, 'escape'), '') FROM jobs WHERE name = $1`, name).Scan(&out); err != nil {
		a.t.Fatal(err)
	}
	return out
}
