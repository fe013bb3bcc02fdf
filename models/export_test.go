package models

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"time"

	"gorm.io/gorm"
)

// RecordOutcomesSQL is FinishAttempts' statement, for the tests of its plan.
var RecordOutcomesSQL = recordOutcomesSQL

// StartOccurrencesSQL is the claim's statement that starts the due
// occurrences of many jobs at once, for the test of its plan.
var StartOccurrencesSQL = startOccurrencesSQL

// PreparedPlans returns how often the statements prepared on the store's
// connections whose text contains part were planned: generic plans made
// and custom plans made, summed. It reads pg_prepared_statements, which
// shows one session's statements: open the store with MaxOpenConns 1.
func (s *Store) PreparedPlans(ctx context.Context, part string) (generic, custom int64, err error) {
	var rows []struct {
		Statement    string
		GenericPlans int64
		CustomPlans  int64
	}
	err = s.db.WithContext(ctx).Raw(`SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`).Scan(&rows).Error
	for _, r := range rows {
		if strings.Contains(r.Statement, part) {
			generic, custom = generic+r.GenericPlans, custom+r.CustomPlans
		}
	}
	return generic, custom, err
}

// SettingsAfterFinish records outcomes as the engine's claim does (in a
// transaction that goes on after them) and returns enable_seqscan and
// plan_cache_mode as the rest of that transaction sees them.
func (s *Store) SettingsAfterFinish(ctx context.Context, outcomes []AttemptOutcome) (seqscan, cacheMode string, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := finishAttemptsTx(tx, outcomes); err != nil {
			return err
		}
		return tx.Raw(`SELECT current_setting('enable_seqscan'), current_setting('plan_cache_mode')`).Row().Scan(&seqscan, &cacheMode)
	})
	return seqscan, cacheMode, err
}

// UseMigrations makes Migrate, SchemaStatus and CheckReady use the
// migrations of fsys instead of the embedded ones. Call it before the
// store is shared.
func (s *Store) UseMigrations(fsys fs.FS) { s.migrationFS = fsys }

// MigrationReleases returns schema_migrations' applied_by by version.
func (s *Store) MigrationReleases(ctx context.Context) (map[int]string, error) {
	var rows []struct {
		Version   int
		AppliedBy string
	}
	err := s.db.WithContext(ctx).Raw(`SELECT version, applied_by FROM schema_migrations`).Scan(&rows).Error
	out := map[int]string{}
	for _, r := range rows {
		out[r.Version] = r.AppliedBy
	}
	return out, err
}

// HasColumn reports whether table has column.
func (s *Store) HasColumn(ctx context.Context, table, column string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?`, table, column).Scan(&n).Error
	return n > 0, err
}

// BackendPID returns the server process id of the pool connection that
// runs the query: with MaxOpenConns 1, the pool's one connection.
func (s *Store) BackendPID(ctx context.Context) (int, error) {
	var pid int
	err := s.db.WithContext(ctx).Raw(`SELECT pg_backend_pid()`).Scan(&pid).Error
	return pid, err
}

// ScanRow is a row of the scanAll tests: a column of each kind the
// engine's statements return.
type ScanRow struct {
	ID      int64
	Action  ActionName
	Attempt int
	At      time.Time
	Next    *time.Time
	RerunOf *int64
	Changes json.RawMessage
	OK      bool
}

// ScanAllRows runs q on the store's database with scanAll and ScanRow's
// columns in the order of its fields.
func (s *Store) ScanAllRows(ctx context.Context, q string, args ...any) ([]ScanRow, error) {
	return scanAll(s.db.WithContext(ctx), func(r *ScanRow) []any {
		return []any{&r.ID, &r.Action, &r.Attempt, &r.At, &r.Next, &r.RerunOf, (*[]byte)(&r.Changes), &r.OK}
	}, q, args...)
}

// GormScanRows runs q on the store's database with GORM's Scan into
// ScanRow, which scanAll replaces in the engine's per-batch statements.
func (s *Store) GormScanRows(ctx context.Context, q string, args ...any) ([]ScanRow, error) {
	var out []ScanRow
	err := s.db.WithContext(ctx).Raw(q, args...).Scan(&out).Error
	return out, err
}
