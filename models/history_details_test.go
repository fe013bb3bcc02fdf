package models_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDetailsSizeIsBoundedByTheDatabase: job_history_details refuses a
// request or a response over 64 KiB (migration 0026's CHECKs on the
// jsonb's binary size) whoever writes it, and stores one just under the
// bound; a refused row leaves nothing behind.
func TestDetailsSizeIsBoundedByTheDatabase(t *testing.T) {
	store, db := storeAndDB(t)
	coll := newCollection(t, store, "rg", "jc")
	var jobID int64
	if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state)
			VALUES ($1, 'sized', $2::json, 'disabled') RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll.ID, storedDef).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	entry := func() int64 {
		var id int64
		if err := db.QueryRow(`INSERT INTO job_history (job_id, start_time, end_time, expected_execution_time, action_name, status)
			VALUES ($1, $2, $2, $2, 'MainAction', 'Completed') RETURNING id`, jobID, t0).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// doc is a request (or response) whose body is n bytes long.
	doc := func(n int) string {
		b, err := json.Marshal(map[string]any{"method": "POST", "url": "https://example.com/", "headers": []any{},
			"body": strings.Repeat("x", n)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	insert := func(id int64, req, resp string) error {
		_, err := db.Exec(`INSERT INTO job_history_details (history_id, request, response) VALUES ($1, $2::jsonb, $3::jsonb)`,
			id, req, resp)
		return err
	}
	small := doc(10)
	if err := insert(entry(), doc(60<<10), doc(60<<10)); err != nil {
		t.Fatalf("a request and a response of 60 KiB: %v", err)
	}
	for _, c := range []struct {
		name, req, resp, constraint string
	}{
		{"request over 64 KiB", doc(65 << 10), small, "job_history_details_request_size"},
		{"response over 64 KiB", small, doc(65 << 10), "job_history_details_response_size"},
	} {
		id := entry()
		err := insert(id, c.req, c.resp)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != c.constraint {
			t.Errorf("%s: got %v, want a check violation of %s", c.name, err, c.constraint)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM job_history_details WHERE history_id = $1`, id).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows stored (%v), want none", c.name, n, err)
		}
	}
}
