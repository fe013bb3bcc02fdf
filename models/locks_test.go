package models_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"sked/models"
)

// TestAuditedRetriesADeadlock makes two audited writes deadlock for
// certain (each locks one job, waits for the other to lock its job, then
// locks the other's): PostgreSQL cancels one (SQLSTATE 40P01), which
// Audited runs again from the start. Both succeed, the one retried has
// run its body twice, and each leaves its audit entry once.
func TestAuditedRetriesADeadlock(t *testing.T) {
	f := newPagesFixture(t)
	// In two collections: each write's own job count row is its own.
	colls := []*models.JobCollection{f.collection("default", "a", "Enabled"), f.collection("default", "b", "Enabled")}
	var ids [2]int64
	for i, name := range []string{"one", "two"} {
		j, _, err := f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: colls[i].ID, Name: name,
			Definition: []byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = j.ID
	}
	var firstLocks sync.WaitGroup
	firstLocks.Add(2)
	var runs [2]atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = f.store.Audited(context.Background(), "test", func(tx *models.Store) ([]models.AuditEntry, error) {
				first := runs[w].Add(1) == 1
				mine, other := ids[w], ids[1-w]
				if _, err := tx.SetJobState(f.ctx, mine, models.JobStateWrite{Enabled: false, By: "t"}); err != nil {
					return nil, err
				}
				if first {
					firstLocks.Done()
					firstLocks.Wait()
				}
				if _, err := tx.SetJobState(f.ctx, other, models.JobStateWrite{Enabled: false, By: "t"}); err != nil {
					return nil, err
				}
				return []models.AuditEntry{{WorkspaceID: models.DefaultWorkspaceID, ActorKind: models.ActorSystem, ActorName: "test",
					Action: "job.disable", Resource: "retry", Detail: []string{"first", "second"}[w]}}, nil
			})
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			var pgErr *pgconn.PgError
			errors.As(err, &pgErr)
			t.Errorf("write %d: %v (%+v)", w, err, pgErr)
		}
	}
	// The deadlock's victim runs again. Its retry may reach the other's
	// job before the survivor, which was queued for it, takes it, and
	// deadlock once more: at least one body runs twice.
	if n := runs[0].Load() + runs[1].Load(); n < 3 {
		t.Errorf("the bodies ran %d and %d times, want one of them again after the deadlock", runs[0].Load(), runs[1].Load())
	}
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var entries int
	if err := db.QueryRow(`SELECT count(*) FROM audit_entries WHERE resource = 'retry'`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if entries != 2 {
		t.Errorf("%d audit entries, want one per write", entries)
	}
}
