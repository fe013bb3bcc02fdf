package engine

import (
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// TestEngineAuditsJobEndsAndRetentionPurgesTheLog checks that a job the
// engine completes leaves one audit entry by the engine, written with
// the job's end, and that retention deletes entries older than
// AuditMaxAge as of the engine's clock, and only those (the engine's, and
// the write service's for the collection and the job).
func TestEngineAuditsJobEndsAndRetentionPurgesTheLog(t *testing.T) {
	e := newEnv(t, nil)
	done := e.put("once", `{"action":`+e.action("/d", "")+`}`)
	e.drain()
	if st := e.job(done).State; st != jobdef.Completed {
		t.Fatalf("job state %q, want completed", st)
	}
	page, err := e.store.AuditEntries(e.ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID, Actor: models.EngineActorName})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 1 {
		t.Fatalf("audit entries %+v, want the engine's one", page.Entries)
	}
	got := page.Entries[0]
	want := models.AuditJobResource("rg", e.coll.Name, "once")
	if got.ActorKind != models.ActorEngine || got.ActorName != models.EngineActorName || got.Action != models.AuditJobComplete ||
		got.Resource != want || !got.At.Equal(e.clock.Now()) {
		t.Errorf("entry %+v, want engine job.complete of %s at %v", got, want, e.clock.Now())
	}

	all, err := e.store.AuditEntries(e.ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID})
	if err != nil {
		t.Fatal(err)
	}

	e.engine.cfg.AuditMaxAge = 400 * 24 * time.Hour
	e.clock.Add(399 * 24 * time.Hour)
	if st, err := e.engine.prune(e.ctx); err != nil || st.Audit != 0 {
		t.Fatalf("prune after 399 days: %+v, %v; want nothing deleted", st, err)
	}
	e.clock.Add(2 * 24 * time.Hour)
	st, err := e.engine.prune(e.ctx)
	if err != nil || int(st.Audit) < len(all.Entries) {
		t.Fatalf("prune after 401 days: %+v, %v; want the workspace's %d entries deleted", st, err, len(all.Entries))
	}
	page, err = e.store.AuditEntries(e.ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID})
	if err != nil || len(page.Entries) != 0 {
		t.Errorf("after retention: %+v, %v", page.Entries, err)
	}
}
