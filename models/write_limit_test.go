package models_test

import (
	"context"
	"errors"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// TestConcurrentWritesAreLimited checks Options.MaxConcurrentWrites: with
// a limit of 1, a write waits while another is in its transaction (it
// does not begin: given up when its context ends, it never ran), a write
// nested in the transaction of another takes no second slot, and the
// next write runs once the first has committed.
func TestConcurrentWritesAreLimited(t *testing.T) {
	opts := testdb.Options()
	opts.MaxConcurrentWrites = 1
	store := testdb.Open(t, testdb.DSN(t), opts)
	ctx := context.Background()

	inside, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- store.Audited(ctx, "first", func(tx *models.Store) ([]models.AuditEntry, error) {
			// Nested in this transaction: no second slot to wait for.
			if err := tx.Audited(ctx, "nested", func(*models.Store) ([]models.AuditEntry, error) { return nil, nil }); err != nil {
				return nil, err
			}
			close(inside)
			<-release
			return nil, nil
		})
	}()
	<-inside

	waiting, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	err := store.Audited(waiting, "second", func(*models.Store) ([]models.AuditEntry, error) {
		ran = true
		return nil, nil
	})
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("a write beyond the limit, its context ended: %v (ran %v), want context.Canceled without running", err, ran)
	}

	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	err = store.Audited(ctx, "third", func(*models.Store) ([]models.AuditEntry, error) {
		ran = true
		return nil, nil
	})
	if err != nil || !ran {
		t.Fatalf("the write after the first: %v (ran %v), want it run", err, ran)
	}
}
