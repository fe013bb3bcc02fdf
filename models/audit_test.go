package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestAuditLogIsAppendOnly checks that Audited appends its entries with
// the change, none when fn fails, and that the table refuses UPDATE,
// DELETE and TRUNCATE: only Prune deletes, and only what is old enough.
func TestAuditLogIsAppendOnly(t *testing.T) {
	store, db := storeAndDB(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	entry := func(at time.Time, resource string) models.AuditEntry {
		return models.AuditEntry{At: at, WorkspaceID: models.DefaultWorkspaceID, ActorKind: models.ActorUser, ActorUserID: 1,
			ActorName: "ada", Via: "web", Addr: "192.0.2.1", Action: "job.put", Resource: resource,
			Diff: []models.AuditChange{{Path: "recurrence.interval", Old: "1", New: "2"}}}
	}
	err := store.Audited(ctx, "test", func(tx *models.Store) ([]models.AuditEntry, error) {
		return []models.AuditEntry{entry(t0, "resourceGroups/rg/jobCollections/c/jobs/old"),
			entry(t0.Add(48*time.Hour), "resourceGroups/rg/jobCollections/c/jobs/new")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = store.Audited(ctx, "test", func(tx *models.Store) ([]models.AuditEntry, error) {
		return []models.AuditEntry{entry(t0, "x")}, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing write: %v, want its error", err)
	}
	count := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM audit_entries`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("%d entries, want 2 (none of the failed write)", n)
	}
	for _, q := range []string{`UPDATE audit_entries SET actor_name = 'mallory'`, `DELETE FROM audit_entries`, `TRUNCATE audit_entries`} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused as append-only", q, err)
		}
	}
	if _, err := db.Exec(`INSERT INTO audit_entries (at, actor_kind, action) VALUES (now(), 'user', 'job.steal')`); err == nil {
		t.Error("an unknown action was stored")
	}
	if _, err := db.Exec(`INSERT INTO audit_entries (at, actor_kind, action) VALUES (now(), 'robot', 'job.put')`); err == nil {
		t.Error("an unknown actor kind was stored")
	}

	// A workspace named in another letter case is filed under its stored
	// id; an unknown one as given.
	if _, err := db.Exec(`INSERT INTO workspaces (id) VALUES ('team')`); err != nil {
		t.Fatal(err)
	}
	err = store.Audited(ctx, "test", func(tx *models.Store) ([]models.AuditEntry, error) {
		e1, e2 := entry(t0.Add(time.Hour), "x"), entry(t0.Add(time.Hour), "y")
		e1.WorkspaceID, e2.WorkspaceID = "TEAM", "gone"
		return []models.AuditEntry{e1, e2}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var folded, gone int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE workspace_id = 'team' AND resource = 'x'),
		count(*) FILTER (WHERE workspace_id = 'gone') FROM audit_entries`).Scan(&folded, &gone); err != nil || folded != 1 || gone != 1 {
		t.Errorf("workspaces of entries: %d folded, %d kept as given (%v); want 1, 1", folded, gone, err)
	}

	page, err := store.AuditEntries(ctx, models.AuditFilter{WorkspaceID: models.DefaultWorkspaceID, Resource: "resourceGroups/rg/jobCollections/c"})
	if err != nil || len(page.Entries) != 2 || page.Entries[0].Resource != "resourceGroups/rg/jobCollections/c/jobs/new" {
		t.Fatalf("entries under the collection: %+v, %v; want both, newest first", page.Entries, err)
	}
	if d := page.Entries[0].Diff; len(d) != 1 || d[0] != (models.AuditChange{Path: "recurrence.interval", Old: "1", New: "2"}) {
		t.Errorf("diff read back as %+v", d)
	}

	st, err := store.Prune(ctx, t0.Add(24*time.Hour+time.Minute), models.Retention{AuditMaxAge: 24 * time.Hour})
	if err != nil || st.Audit != 1 {
		t.Fatalf("prune: %+v, %v; want the older entry deleted", st, err)
	}
	if n := count(); n != 3 {
		t.Errorf("%d entries after prune, want 3", n)
	}
	if _, err := db.Exec(`DELETE FROM audit_entries`); err == nil {
		t.Error("a delete outside the retention went through after Prune")
	}
}

// TestAuditEntriesFilterAndPage checks the filters (actor, resource as a
// prefix that stops at a segment, action or its family, time range) and
// the keyset paging of AuditEntries.
func TestAuditEntriesFilterAndPage(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var es []models.AuditEntry
	for i := range 7 {
		actor, action, res := "ada", "job.put", "resourceGroups/rg/jobCollections/c/jobs/a"
		if i%2 == 1 {
			actor, action, res = "Bob", "collection.put", "resourceGroups/rg/jobCollections/c"
		}
		if i == 6 {
			res = "resourceGroups/rg/jobCollections/c/jobs/ab"
		}
		es = append(es, models.AuditEntry{At: t0.Add(time.Duration(i) * time.Hour), WorkspaceID: models.DefaultWorkspaceID,
			ActorKind: models.ActorUser, ActorName: actor, Action: action, Resource: res})
	}
	es = append(es, models.AuditEntry{At: t0, WorkspaceID: "elsewhere", ActorKind: models.ActorUser, ActorName: "ada", Action: "job.put",
		Resource: "resourceGroups/rg/jobCollections/c/jobs/a"})
	if err := store.Audited(ctx, "test", func(*models.Store) ([]models.AuditEntry, error) { return es, nil }); err != nil {
		t.Fatal(err)
	}
	ws := models.DefaultWorkspaceID
	for _, c := range []struct {
		name string
		f    models.AuditFilter
		want int
	}{
		{"all of the workspace", models.AuditFilter{WorkspaceID: ws}, 7},
		{"actor, any case", models.AuditFilter{WorkspaceID: ws, Actor: "bob"}, 3},
		{"a job, not its namesake prefix", models.AuditFilter{WorkspaceID: ws, Resource: "resourceGroups/rg/jobCollections/c/jobs/a"}, 3},
		{"a collection and its jobs", models.AuditFilter{WorkspaceID: ws, Resource: "resourceGroups/rg/jobCollections/c"}, 7},
		{"an action", models.AuditFilter{WorkspaceID: ws, Action: "collection.put"}, 3},
		{"a family of actions", models.AuditFilter{WorkspaceID: ws, Action: "job"}, 4},
		{"a time range", models.AuditFilter{WorkspaceID: ws, Since: t0.Add(time.Hour), Until: t0.Add(3 * time.Hour)}, 2},
	} {
		page, err := store.AuditEntries(ctx, c.f)
		if err != nil || len(page.Entries) != c.want {
			t.Errorf("%s: %d entries (%v), want %d", c.name, len(page.Entries), err, c.want)
		}
	}
	var seen []int64
	f := models.AuditFilter{WorkspaceID: ws, Limit: 3}
	for range 5 {
		page, err := store.AuditEntries(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			seen = append(seen, e.ID)
		}
		if page.Next == 0 {
			break
		}
		f.Before = page.Next
	}
	if len(seen) != 7 {
		t.Fatalf("paging saw %d entries, want 7", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] >= seen[i-1] {
			t.Fatalf("pages not newest first: %v", seen)
		}
	}
	last, err := store.LastAudit(ctx, ws, "resourceGroups/rg/jobCollections/c")
	if err != nil || last.ActorName != "Bob" || !last.At.Equal(t0.Add(5*time.Hour)) {
		t.Errorf("LastAudit = %+v, %v", last, err)
	}
	if _, err := store.LastAudit(ctx, ws, "resourceGroups/rg/jobCollections/none"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("LastAudit of nothing: %v", err)
	}
}
