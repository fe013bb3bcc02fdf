package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
)

// dbClock reads the database's clock.
func dbClock(t *testing.T, db *sql.DB) time.Time {
	t.Helper()
	var at time.Time
	if err := db.QueryRow(`SELECT clock_timestamp()`).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}

// TestHeartbeatExpiresTheLeasesOfDeadInstances: a beat renews the
// instance's row at the database's clock (the time it returns lies between
// two readings of that clock taken around it); the running attempts of an
// instance whose heartbeat is older than DeadAfter by the database's clock
// get an expired lease (and are then claimed as expired), those of live
// instances and of the beating one keep theirs; RemoveInstance keeps the
// row of an instance that still holds attempts; retention deletes the
// rows of instances silent for InstanceMaxAge by the database's clock,
// whatever the now it is given.
func TestHeartbeatExpiresTheLeasesOfDeadInstances(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "hb")
	t0 := time.Now().Truncate(time.Second)
	var jobs []int64
	for _, name := range []string{"dead", "live", "self"} {
		j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: name, Definition: json.RawMessage(
			`{"startTime":"2099-01-01T00:00:00Z","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`)})
		jobs = append(jobs, j.ID)
		if _, err := db.Exec(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
				lease_owner, lease_expires_at, started_at)
			VALUES ($1, $2, 'MainAction', 1, 1, 'running', $2, $3, $4, $2)`, j.ID, t0, name, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	beat := func(id string) models.HeartbeatResult {
		t.Helper()
		before := dbClock(t, db)
		res, err := store.Heartbeat(ctx, models.Heartbeat{ID: id, DeadAfter: 20 * time.Second,
			Version: "v-" + id, SchemaVersion: 32})
		if err != nil {
			t.Fatal(err)
		}
		if after := dbClock(t, db); res.DatabaseTime.Before(before) || res.DatabaseTime.After(after) {
			t.Errorf("beat of %s at %s, not between the database's clock before (%s) and after (%s)", id,
				res.DatabaseTime, before, after)
		}
		return res
	}
	// age makes instance id's latest heartbeat d old by the database's
	// clock (what a silent instance's row becomes).
	age := func(id string, d time.Duration) {
		t.Helper()
		if _, err := db.Exec(`UPDATE engine_instances SET heartbeat_at = clock_timestamp() - $2 * interval '1 microsecond'
			WHERE id = $1`, id, d.Microseconds()); err != nil {
			t.Fatal(err)
		}
	}
	beat("dead")
	beat("live")
	first := beat("self")
	if first.Expired != 0 {
		t.Errorf("%d attempts handed over with every instance alive", first.Expired)
	}
	age("dead", 25*time.Second)
	age("live", 15*time.Second)
	// A beat that skips recovery (its instance's own beats just failed)
	// leaves the dead instance's attempt alone.
	if quiet, err := store.Heartbeat(ctx, models.Heartbeat{ID: "self", DeadAfter: 20 * time.Second,
		Version: "v-self", SchemaVersion: 32, SkipRecovery: true}); err != nil || quiet.Expired != 0 {
		t.Errorf("a beat skipping recovery: %+v, %v; want nothing handed over", quiet, err)
	}
	handed := beat("self")
	if handed.Expired != 1 {
		t.Errorf("%d attempts handed over, want the dead instance's one", handed.Expired)
	}
	last := beat("self")
	if last.Expired != 0 {
		t.Errorf("%d attempts handed over again", last.Expired)
	}
	for i, want := range []time.Time{handed.DatabaseTime.Add(-time.Millisecond), t0.Add(time.Hour), t0.Add(time.Hour)} {
		att, err := store.Attempts(ctx, jobs[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(att) != 1 || att[0].Status != "running" || !att[0].LeaseExpiresAt.Equal(want) {
			t.Errorf("attempt of job %d: %+v, want running with its lease ending %s", jobs[i], att, want)
		}
	}
	inst, err := store.EngineInstances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(inst) != 3 || inst[2].ID != "self" || !inst[2].StartedAt.Equal(first.DatabaseTime) ||
		!inst[2].HeartbeatAt.Equal(last.DatabaseTime) || inst[2].Version != "v-self" || inst[2].SchemaVersion != 32 {
		t.Errorf("instances %+v", inst)
	}
	if gone, err := store.RemoveInstance(ctx, "live"); err != nil || gone {
		t.Errorf("RemoveInstance of an instance holding an attempt: %v, %v; want the row kept", gone, err)
	}
	// The attempt finishes: its row goes (its history entry stays).
	if _, err := db.Exec(`DELETE FROM job_attempts WHERE job_id = $1`, jobs[1]); err != nil {
		t.Fatal(err)
	}
	if gone, err := store.RemoveInstance(ctx, "live"); err != nil || !gone {
		t.Errorf("RemoveInstance: %v, %v", gone, err)
	}
	// Retention deletes dead instances without running attempts, by the
	// database's clock: a now two days ahead (a clock far ahead) deletes
	// no live instance's row.
	if _, err := db.Exec(`DELETE FROM job_attempts WHERE job_id = ANY($1)`, []int64{jobs[0], jobs[2]}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Prune(ctx, t0.Add(48*time.Hour), models.Retention{InstanceMaxAge: 24 * time.Hour})
	if err != nil || st.Instances != 0 {
		t.Errorf("Prune two days ahead: %+v, %v; want no instance deleted (none is silent by the database's clock)", st, err)
	}
	age("dead", 25*time.Hour)
	st, err = store.Prune(ctx, t0, models.Retention{InstanceMaxAge: 24 * time.Hour})
	if err != nil || st.Instances != 1 {
		t.Errorf("Prune: %+v, %v; want the dead instance deleted", st, err)
	}
}

// TestHeartbeatJudgesByTheDatabaseClock: an instance is alive while it
// beats, whatever its clock (a beat carries none), and one that stopped is
// dead DeadAfter after its last beat by the database's clock: with a long
// DeadAfter nothing is handed over, with a short one after the database's
// clock passed it, it is, and the engines are woken.
func TestHeartbeatJudgesByTheDatabaseClock(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "clock")
	j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: "held", Definition: json.RawMessage(
		`{"startTime":"2099-01-01T00:00:00Z","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`)})
	// The attempt's lease is far away by the database's clock.
	if _, err := db.Exec(`INSERT INTO job_attempts (job_id, expected_time, action, attempt, occurrence, status, due_at,
			lease_owner, lease_expires_at, started_at)
		VALUES ($1, now(), 'MainAction', 1, 1, 'running', now(), 'quiet', now() + interval '1 hour', now())`, j.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Heartbeat(ctx, models.Heartbeat{ID: "quiet", DeadAfter: time.Hour}); err != nil {
		t.Fatal(err)
	}
	quiet := dbClock(t, db)
	if res, err := store.Heartbeat(ctx, models.Heartbeat{ID: "other", DeadAfter: time.Hour}); err != nil || res.Expired != 0 {
		t.Fatalf("beat with an hour's dead-after: %+v, %v; want nothing handed over", res, err)
	}
	// Wait on the database's clock (not the test's) until "quiet" has
	// been silent for 50 ms.
	for dbClock(t, db).Sub(quiet) < 50*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
	// The engines are told to look again when attempts were handed over.
	lctx, cancel := context.WithCancel(ctx)
	l := models.NewListener(store.DSN(), nil)
	done := make(chan error)
	go func() { done <- l.Run(lctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-l.C(): // connected
	case <-time.After(10 * time.Second):
		t.Fatal("no wake-up on connecting")
	}
	res, err := store.Heartbeat(ctx, models.Heartbeat{ID: "other", DeadAfter: 50 * time.Millisecond})
	if err != nil || res.Expired != 1 {
		t.Fatalf("beat with a dead-after of 50 ms, passed: %+v, %v; want the quiet instance's attempt handed over", res, err)
	}
	select {
	case <-l.C():
	case <-time.After(10 * time.Second):
		t.Error("no wake-up after attempts were handed over")
	}
	if _, err := store.Heartbeat(ctx, models.Heartbeat{ID: "other"}); err == nil {
		t.Error("a beat without dead-after was accepted")
	}
}

// TestHeartbeatSeesOlderReleasesAndDeadRecords: a beat says whether another
// live instance's release knows fewer migrations than
// models.RecordsMigration (its engines then start job_attempts rows); a
// dead one's does not count. The records running (history rows) of a dead
// instance get an expired lease, as its job_attempts rows do, and keep its
// row from RemoveInstance while they run.
func TestHeartbeatSeesOlderReleasesAndDeadRecords(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "hb")
	j := saveJob(t, store, models.JobWrite{CollectionID: coll.ID, Name: "rec", Definition: json.RawMessage(
		`{"startTime":"2099-01-01T00:00:00Z","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`)})
	t0 := time.Now().Truncate(time.Second)
	if _, err := db.Exec(`INSERT INTO job_history (job_id, start_time, expected_execution_time, action_name, status,
			attempt_id, lease_owner, lease_expires_at, due_at)
		VALUES ($1, $2, $2, 'MainAction', 'Running', nextval('job_attempts_id_seq'), 'gone', $3, $2)`,
		j.ID, t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	beat := func(id string, schema int) models.HeartbeatResult {
		t.Helper()
		res, err := store.Heartbeat(ctx, models.Heartbeat{ID: id, DeadAfter: 20 * time.Second, SchemaVersion: schema})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := beat("new", models.RecordsMigration); r.OlderLive {
		t.Error("OlderLive with no other instance")
	}
	beat("old", models.RecordsMigration-1)
	beat("gone", models.RecordsMigration)
	if r := beat("new", models.RecordsMigration); !r.OlderLive || r.Expired != 0 {
		t.Errorf("beat with an older release alive: %+v, want OlderLive and nothing expired", r)
	}
	if gone, err := store.RemoveInstance(ctx, "gone"); err != nil || gone {
		t.Errorf("RemoveInstance of an instance running a record: %v, %v; want the row kept", gone, err)
	}
	if _, err := db.Exec(`UPDATE engine_instances SET heartbeat_at = clock_timestamp() - interval '1 minute'
		WHERE id IN ('old', 'gone')`); err != nil {
		t.Fatal(err)
	}
	r := beat("new", models.RecordsMigration)
	if r.OlderLive || r.Expired != 1 {
		t.Errorf("beat with the older release dead: %+v, want no OlderLive and the dead one's record expired", r)
	}
	var expired bool
	if err := db.QueryRow(`SELECT lease_expires_at < now() FROM job_history WHERE job_id = $1`, j.ID).Scan(&expired); err != nil || !expired {
		t.Errorf("the dead instance's record: lease expired %v (%v), want true", expired, err)
	}
}
