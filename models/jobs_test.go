package models_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestJobNameIsCheckedOnlyWhenWritten: the database refuses a malformed job
// name on INSERT and on an UPDATE that sets it (migration 0027's domain,
// job_name_format, with 0001's rule), while an update of the job's other
// columns, the engine's kind, carries no CHECK that reads the name (a
// table CHECK is evaluated on every update of the row). Columns of the
// domain read back as text through pgx, and the name's indexes still
// serve lower(name).
func TestJobNameIsCheckedOnlyWhenWritten(t *testing.T) {
	store, db := storeAndDB(t)
	coll := newCollection(t, store, "rg", "jc")
	insert := func(name string) (int64, error) {
		var id int64
		err := db.QueryRow(`WITH j AS (INSERT INTO jobs (job_collection_id, name, definition, state)
			VALUES ($1, $2, $3::json, 'disabled') RETURNING id),
			r AS (INSERT INTO job_results (job_id) SELECT id FROM j)
			SELECT id FROM j`, coll.ID, name, storedDef).Scan(&id)
		return id, err
	}
	wantFormat := func(what string, err error) {
		t.Helper()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != "job_name_format" {
			t.Errorf("%s: got %v, want a check violation of job_name_format", what, err)
		}
	}
	id, err := insert("Nightly_report-2")
	if err != nil {
		t.Fatalf("a well-formed name: %v", err)
	}
	for _, bad := range []string{"-leading-dash", "_leading", "has space", "dot.ted", "", strings.Repeat("a", 101)} {
		_, err := insert(bad)
		wantFormat("insert "+bad, err)
	}
	if _, err := insert(strings.Repeat("b", 100)); err != nil {
		t.Errorf("a name of 100 characters: %v", err)
	}
	_, err = db.Exec(`UPDATE jobs SET name = 'bad name' WHERE id = $1`, id)
	wantFormat("rename", err)
	if _, err := db.Exec(`UPDATE jobs SET scheduled_count = scheduled_count + 1 WHERE id = $1`, id); err != nil {
		t.Fatalf("an update of the engine's count: %v", err)
	}

	var name string
	if err := db.QueryRow(`SELECT name FROM jobs WHERE id = $1`, id).Scan(&name); err != nil || name != "Nightly_report-2" {
		t.Errorf("name read back: %q, %v", name, err)
	}
	var checks []string
	rows, err := db.Query(`SELECT conname FROM pg_constraint
		WHERE conrelid = 'jobs'::regclass AND contype = 'c'
		  AND pg_get_constraintdef(oid) ~ '\mname\M'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		rows.Scan(&c)
		checks = append(checks, c)
	}
	if len(checks) != 0 {
		t.Errorf("jobs has CHECK constraints reading name, evaluated on every update: %v", checks)
	}
	plan := planWithoutSeqScan(t, db, `SELECT id FROM jobs WHERE job_collection_id = $1 AND lower(name) = lower($2)`,
		coll.ID, "nightly_REPORT-2")
	if !strings.Contains(plan, "Index Cond: (lower(") {
		t.Errorf("lookup by lower(name): no index on lower(name) serves it:\n%s", plan)
	}
}
