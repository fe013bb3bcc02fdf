package catalog_test

import (
	"testing"
	"time"

	"sked/models/problem"
	"sked/scheduler/catalog"
)

// wantNameTaken fails unless err is CreateJob's refusal of name: one
// problem of jobName.
func wantNameTaken(t *testing.T, err error, name string) {
	t.Helper()
	ve := problem.As(err)
	if ve == nil || len(ve.Problems) != 1 || ve.Problems[0].Path != "jobName" ||
		ve.Problems[0].Message != `a job named "`+name+`" already exists in this collection: edit it instead` {
		t.Fatalf("got %v, want the name taken as a problem of jobName", err)
	}
}

// TestCreateJobRefusesATakenName creates a job, then refuses another of
// the same name in any case, leaving the first as it was.
func TestCreateJobRefusesATakenName(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	if _, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "daily", []byte(basicJob("pw"))); err != nil {
		t.Fatal(err)
	}
	before := e.fingerprint()
	_, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "DAILY", []byte(seedJob))
	wantNameTaken(t, err, "DAILY")
	if e.fingerprint() != before {
		t.Error("a refused creation changed the jobs")
	}
}

// TestCreateJobConcurrently creates one name twice at once: exactly one
// creation succeeds and the other gets the field error. Both pass the
// catalog's first look at the name before either writes (a transaction
// of the test holds the collection's lock until both wait for it), so the
// store's check under that lock is what refuses the second.
func TestCreateJobConcurrently(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	blocker, err := e.db.BeginTx(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback()
	if _, err := blocker.Exec(`SELECT id FROM job_collections WHERE id = $1 FOR UPDATE`, coll.ID); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "daily", []byte(basicJob("pw")))
			errs <- err
		}()
	}
	for waiting := 0; waiting < 2; {
		if len(errs) > 0 {
			t.Fatalf("a creation ended before the lock was released: %v", <-errs)
		}
		if err := e.db.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := blocker.Commit(); err != nil {
		t.Fatal(err)
	}
	var ok, taken int
	for range 2 {
		err := <-errs
		switch {
		case err == nil:
			ok++
		case problem.As(err) != nil:
			wantNameTaken(t, err, "daily")
			taken++
		default:
			t.Fatalf("a creation failed: %v", err)
		}
	}
	if ok != 1 || taken != 1 || e.count() != 1 {
		t.Errorf("%d created, %d refused, %d jobs stored; want 1, 1, 1", ok, taken, e.count())
	}
}
