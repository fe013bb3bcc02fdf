package models_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
)

// TestHeartbeatExpiresTheLeasesOfDeadInstances: a beat renews the
// instance's row; the running attempts of an instance whose heartbeat is
// older than DeadBefore get an expired lease (and are then claimed as
// expired), those of live instances and of the beating one keep theirs;
// RemoveInstance keeps the row of an instance that still holds attempts.
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
	beat := func(id string, now time.Time) int64 {
		t.Helper()
		n, err := store.Heartbeat(ctx, models.Heartbeat{ID: id, Now: now, DeadBefore: now.Add(-20 * time.Second),
			Version: "v-" + id, SchemaVersion: 32})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	beat("dead", t0)
	beat("live", t0)
	if n := beat("self", t0.Add(15*time.Second)); n != 0 {
		t.Errorf("%d attempts handed over with every instance alive", n)
	}
	beat("live", t0.Add(20*time.Second))
	// At t0+25s "dead" has not beaten for 25 s.
	if n := beat("self", t0.Add(25*time.Second)); n != 1 {
		t.Errorf("%d attempts handed over, want the dead instance's one", n)
	}
	if n := beat("self", t0.Add(26*time.Second)); n != 0 {
		t.Errorf("%d attempts handed over again", n)
	}
	for i, want := range []time.Time{t0.Add(25*time.Second - time.Millisecond), t0.Add(time.Hour), t0.Add(time.Hour)} {
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
	if len(inst) != 3 || inst[2].ID != "self" || !inst[2].StartedAt.Equal(t0.Add(15*time.Second)) ||
		!inst[2].HeartbeatAt.Equal(t0.Add(26*time.Second)) || inst[2].Version != "v-self" || inst[2].SchemaVersion != 32 {
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
	// Retention deletes dead instances without running attempts.
	if _, err := db.Exec(`DELETE FROM job_attempts WHERE job_id = $1`, jobs[0]); err != nil {
		t.Fatal(err)
	}
	st, err := store.Prune(ctx, t0.Add(48*time.Hour), models.Retention{InstanceMaxAge: 24 * time.Hour})
	if err != nil || st.Instances != 1 {
		t.Errorf("Prune: %+v, %v; want the dead instance deleted (self still holds an attempt)", st, err)
	}
}
