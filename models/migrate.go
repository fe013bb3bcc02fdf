package models

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"sked/migrations"
)

// migrationLockID is the advisory lock that serialises migrations when
// several instances start at once.
const migrationLockID = 0x736b6564 // "sked"

// ContractMarker is the first line of a contracting migration: one that
// changes the schema in a way the previous release cannot run beside (a
// dropped or renamed column, a changed type; migrations/README.md). It runs
// only when no live instance knows less than it (ApplyMigrations).
const ContractMarker = "-- sked:contract"

// defaultInstanceDeadAfter is Options.InstanceDeadAfter's default, the
// engine's default DeadAfter.
const defaultInstanceDeadAfter = 20 * time.Second

// Migration is one numbered SQL file from the migrations package.
type Migration struct {
	Version int
	Name    string
	SQL     string
	// Contract reports that the file starts with the line ContractMarker.
	Contract bool
}

// Migrations returns the embedded migrations in ascending version order.
// File names must look like 0001_name.sql with unique versions.
func Migrations() ([]Migration, error) {
	return loadMigrations(migrations.FS)
}

func loadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("models: list migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, name := range names {
		prefix, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil || version <= 0 {
			return nil, fmt.Errorf("models: migration %q: name must start with a positive number and an underscore", name)
		}
		if other, dup := seen[version]; dup {
			return nil, fmt.Errorf("models: migrations %q and %q share version %d", other, name, version)
		}
		seen[version] = name
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("models: read migration %q: %w", name, err)
		}
		first, _, _ := strings.Cut(string(body), "\n")
		out = append(out, Migration{Version: version, Name: name, SQL: string(body),
			Contract: strings.TrimSpace(first) == ContractMarker})
	}
	if len(out) == 0 {
		return nil, errors.New("models: no migrations")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// migrations returns the store's migrations: the embedded ones, or those
// of the file system a test gave it.
func (s *Store) migrations() ([]Migration, error) {
	if s.migrationFS != nil {
		return loadMigrations(s.migrationFS)
	}
	return Migrations()
}

// MigrationReport is what ApplyMigrations did.
type MigrationReport struct {
	// Applied lists the versions applied, ascending.
	Applied []int
	// Held is the contracting migration ApplyMigrations stopped before;
	// nil when none waits.
	Held *HeldMigration
}

// HeldMigration is a contracting migration that waits until no live
// instance of an older release is left, with the migrations that wait
// behind it.
type HeldMigration struct {
	// Migration is the contracting migration.
	Migration Migration
	// Waiting lists the versions of the pending migrations from it on (it
	// included), ascending; all of them are contracting (ApplyMigrations
	// fails otherwise).
	Waiting []int
	// Blockers are the live instances whose release knows only migrations
	// older than it, by id.
	Blockers []EngineInstance
}

// String says which migration waits and for which instances, e.g.
// `contract migration 0035_drop_x.sql (and 1 after it) waits for 2
// instances of an older release to stop: a (sked 1a2b3c4, knows
// migrations up to 34), b (release unknown, knows migrations up to 0)`.
func (h *HeldMigration) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "contract migration %s", h.Migration.Name)
	if n := len(h.Waiting) - 1; n > 0 {
		fmt.Fprintf(&b, " (and %d after it)", n)
	}
	fmt.Fprintf(&b, " waits for %d instance(s) of an older release to stop: %s", len(h.Blockers), DescribeInstances(h.Blockers))
	return b.String()
}

// DescribeInstances names instances with their release and the newest
// migration it knows, separated by commas.
func DescribeInstances(instances []EngineInstance) string {
	parts := make([]string, len(instances))
	for i, in := range instances {
		release := "release unknown"
		if in.Version != "" {
			release = "sked " + in.Version
		}
		parts[i] = fmt.Sprintf("%s (%s, knows migrations up to %d)", in.ID, release, in.SchemaVersion)
	}
	return strings.Join(parts, ", ")
}

// SchemaTooNewError reports a database that holds a migration newer than
// every migration this release knows: the release is older than the one
// that migrated the database, and refuses to start on it. It matches
// ErrSchemaTooNew.
type SchemaTooNewError struct {
	// Version is the newest migration applied to the database.
	Version int
	// AppliedBy is the release that applied it; empty when unknown.
	AppliedBy string
	// Known is the newest migration this release knows.
	Known int
	// Release is this release; empty when unknown.
	Release string
}

// Error names the release needed, e.g. "database schema is at migration
// 35 (applied by sked 1a2b3c4); this release (sked 0f0f0f0) knows
// migrations up to 33: run sked 1a2b3c4 or newer".
func (e *SchemaTooNewError) Error() string {
	by, need := "", fmt.Sprintf("a release that knows migration %d", e.Version)
	if e.AppliedBy != "" {
		by = " (applied by sked " + e.AppliedBy + ")"
		need = "sked " + e.AppliedBy + " or newer"
	}
	this := "this release"
	if e.Release != "" {
		this += " (sked " + e.Release + ")"
	}
	return fmt.Sprintf("database schema is at migration %d%s; %s knows migrations up to %d: run %s",
		e.Version, by, this, e.Known, need)
}

// Is makes a SchemaTooNewError match ErrSchemaTooNew.
func (e *SchemaTooNewError) Is(target error) bool { return target == ErrSchemaTooNew }

// Migrate applies the pending migrations (ApplyMigrations) and returns the
// versions it applied. A contracting migration that waits for older
// instances is not an error: Migrate returns what it applied before it.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	rep, err := s.ApplyMigrations(ctx)
	return rep.Applied, err
}

// ApplyMigrations applies every migration that the database has not seen
// yet, in ascending order, each in its own transaction, and records it in
// schema_migrations with the store's release (Options.Release). Each
// transaction takes a transaction-scoped advisory lock first and applies
// its migration only if no other instance did meanwhile, so concurrent
// starts of several instances migrate once; no lock outlives its
// transaction, which a pooler in transaction mode requires (a session lock
// would stay with whichever server connection took it).
//
// It refuses, with a *SchemaTooNewError, a database that holds a migration
// newer than every one it knows, and applies nothing then. It stops before
// a contracting migration (Migration.Contract) while a live instance (a
// heartbeat within Options.InstanceDeadAfter, by the database's clock)
// records a schema version lower than that migration's: the report's Held
// says which, and the migrations after it wait too. Those must all be
// contracting (a release numbers its contracting migrations after its
// expanding ones): an expanding migration held back is an error, since
// this release cannot work without it.
func (s *Store) ApplyMigrations(ctx context.Context) (MigrationReport, error) {
	var rep MigrationReport
	all, err := s.migrations()
	if err != nil {
		return rep, err
	}
	known := all[len(all)-1].Version
	db := s.db.WithContext(ctx)
	done := map[int]bool{}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockID).Error; err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`).Error; err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		if err := checkNotTooNew(tx, known, s.release); err != nil {
			return err
		}
		var versions []int
		if err := tx.Raw("SELECT version FROM schema_migrations").Scan(&versions).Error; err != nil {
			return fmt.Errorf("read versions: %w", err)
		}
		for _, v := range versions {
			done[v] = true
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("models: migrate: %w", err)
	}
	for i, m := range all {
		if done[m.Version] {
			continue
		}
		var held *HeldMigration
		ran := false
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockID).Error; err != nil {
				return fmt.Errorf("lock: %w", err)
			}
			var already bool
			if err := tx.Raw("SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)", m.Version).
				Scan(&already).Error; err != nil {
				return err
			}
			if already {
				return nil // another instance applied it meanwhile
			}
			if m.Contract {
				var err error
				if held, err = contractBlockers(tx, m, s.deadAfter); err != nil || held != nil {
					return err
				}
			}
			withRelease, err := hasAppliedBy(tx)
			if err != nil {
				return err
			}
			if err := tx.Exec(m.SQL).Error; err != nil {
				return err
			}
			ran = true
			if withRelease {
				return tx.Exec("INSERT INTO schema_migrations (version, name, applied_by) VALUES (?, ?, ?)", m.Version, m.Name, s.release).Error
			}
			return tx.Exec("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.Version, m.Name).Error
		})
		if err != nil {
			return rep, fmt.Errorf("models: migrate: %s: %w", m.Name, err)
		}
		if held != nil {
			for _, w := range all[i:] {
				if done[w.Version] {
					continue
				}
				if !w.Contract {
					return rep, fmt.Errorf("models: migrate: migration %s must run for this release to work, but it follows %s: number a release's contracting migrations after its expanding ones (migrations/README.md)",
						w.Name, held)
				}
				held.Waiting = append(held.Waiting, w.Version)
			}
			rep.Held = held
			break
		}
		if ran {
			rep.Applied = append(rep.Applied, m.Version)
		}
	}
	// The migrations applied before the one that added applied_by (on a
	// new database, all of them) get their release now.
	if s.release != "" && len(rep.Applied) > 0 {
		withRelease, err := hasAppliedBy(db)
		if err == nil && withRelease {
			err = db.Exec(`UPDATE schema_migrations SET applied_by = ? WHERE version IN ? AND applied_by = ''`,
				s.release, rep.Applied).Error
		}
		if err != nil {
			return rep, fmt.Errorf("models: migrate: record the release: %w", err)
		}
	}
	return rep, nil
}

// hasAppliedBy reports whether schema_migrations has its applied_by column
// (migration 0033).
func hasAppliedBy(conn *gorm.DB) (bool, error) {
	var n int64
	err := conn.Raw(`SELECT count(*) FROM pg_attribute
		WHERE attrelid = 'schema_migrations'::regclass AND attname = 'applied_by' AND NOT attisdropped`).Scan(&n).Error
	if err != nil {
		return false, fmt.Errorf("read schema_migrations' columns: %w", err)
	}
	return n > 0, nil
}

// newestApplied returns the newest migration recorded in schema_migrations
// (0 when none, or without the table) and the release that applied it
// (empty when unknown).
func newestApplied(conn *gorm.DB) (version int, appliedBy string, err error) {
	var exists bool
	if err := conn.Raw(`SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists).Error; err != nil {
		return 0, "", fmt.Errorf("find schema_migrations: %w", err)
	}
	if !exists {
		return 0, "", nil
	}
	if err := conn.Raw(`SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version).Error; err != nil {
		return 0, "", fmt.Errorf("read the schema version: %w", err)
	}
	withRelease, err := hasAppliedBy(conn)
	if err != nil || !withRelease || version == 0 {
		return version, "", err
	}
	if err := conn.Raw(`SELECT applied_by FROM schema_migrations WHERE version = ?`, version).Scan(&appliedBy).Error; err != nil {
		return 0, "", fmt.Errorf("read the schema version: %w", err)
	}
	return version, appliedBy, nil
}

// checkNotTooNew returns a *SchemaTooNewError when the database holds a
// migration newer than known.
func checkNotTooNew(conn *gorm.DB, known int, release string) error {
	version, by, err := newestApplied(conn)
	if err != nil {
		return err
	}
	if version > known {
		return &SchemaTooNewError{Version: version, AppliedBy: by, Known: known, Release: release}
	}
	return nil
}

// contractBlockers returns contracting migration m held, with the live
// instances that block it, or nil when none does. An instance is live when
// its latest heartbeat is at most deadAfter old by the database's clock.
func contractBlockers(conn *gorm.DB, m Migration, deadAfter time.Duration) (*HeldMigration, error) {
	var blockers []EngineInstance
	err := conn.Raw(`SELECT id, started_at, heartbeat_at, version, schema_version FROM engine_instances
		WHERE schema_version < ? AND heartbeat_at >= now() - make_interval(secs => ?)
		ORDER BY id`, m.Version, deadAfter.Seconds()).Scan(&blockers).Error
	if err != nil {
		return nil, fmt.Errorf("%s: find instances of older releases: %w", m.Name, err)
	}
	if len(blockers) == 0 {
		return nil, nil
	}
	return &HeldMigration{Migration: m, Blockers: blockers}, nil
}

// SchemaVersion returns the highest applied migration version, or 0 when
// none has been applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	version, _, err := newestApplied(s.db.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("models: schema version: %w", err)
	}
	return version, nil
}

// SchemaStatus compares the database's schema with the migrations this
// release knows.
type SchemaStatus struct {
	// Version is the newest migration applied; AppliedBy the release that
	// applied it, empty when unknown.
	Version   int
	AppliedBy string
	// Known is the newest migration this release knows.
	Known int
	// Missing lists the known expanding migrations not applied: this
	// release needs them.
	Missing []int
	// Held lists the known contracting migrations not applied (they wait
	// for older instances to stop; this release works without them).
	Held []int
	// TooNew is set when the database holds a migration newer than Known:
	// this instance runs beside a newer release (which it may, every
	// migration being safe beside the previous release) but would refuse
	// to start again.
	TooNew *SchemaTooNewError
}

// Notice says what an operator should know of the schema while the
// instance serves: that the database is newer than this release (it runs
// beside that release, but would refuse to start again), or that
// contracting migrations wait for older instances to stop. Empty when
// neither.
func (st SchemaStatus) Notice() string {
	switch {
	case st.TooNew != nil:
		return st.TooNew.Error() + " (this instance runs beside that release, but will not start again on this database)"
	case len(st.Held) > 0:
		return fmt.Sprintf("contract migrations %v wait for the instances of older releases to stop (sked migrate applies them then)", st.Held)
	}
	return ""
}

// SchemaStatus reads which known migrations the database lacks and
// whether it is newer than this release.
func (s *Store) SchemaStatus(ctx context.Context) (SchemaStatus, error) {
	var st SchemaStatus
	all, err := s.migrations()
	if err != nil {
		return st, err
	}
	st.Known = all[len(all)-1].Version
	db := s.db.WithContext(ctx)
	if st.Version, st.AppliedBy, err = newestApplied(db); err != nil {
		return st, fmt.Errorf("models: schema status: %w", err)
	}
	done := map[int]bool{}
	if st.Version > 0 {
		var versions []int
		if err := db.Raw(`SELECT version FROM schema_migrations`).Scan(&versions).Error; err != nil {
			return st, fmt.Errorf("models: schema status: %w", err)
		}
		for _, v := range versions {
			done[v] = true
		}
	}
	for _, m := range all {
		switch {
		case done[m.Version]:
		case m.Contract:
			st.Held = append(st.Held, m.Version)
		default:
			st.Missing = append(st.Missing, m.Version)
		}
	}
	if st.Version > st.Known {
		st.TooNew = &SchemaTooNewError{Version: st.Version, AppliedBy: st.AppliedBy, Known: st.Known, Release: s.release}
	}
	return st, nil
}

// CheckReady returns nil when the database answers, accepts writes and
// every embedded migration this release needs has been applied
// (contracting migrations that wait for older instances are not needed);
// else an error saying why: wrapping ErrUnavailable (no answer),
// ErrReadOnly (a standby or a read-only server, see checkWritable in
// readiness.go) or ErrNotMigrated (the schema is behind).
func (s *Store) CheckReady(ctx context.Context) error {
	_, err := s.Readiness(ctx)
	return err
}

// Readiness is CheckReady that also returns the schema's status it read
// (for SchemaStatus.Notice), so that a readiness probe reads it once.
func (s *Store) Readiness(ctx context.Context) (SchemaStatus, error) {
	if err := s.checkWritable(ctx); err != nil {
		return SchemaStatus{}, err
	}
	st, err := s.SchemaStatus(ctx)
	if err != nil {
		return st, err
	}
	if len(st.Missing) > 0 {
		return st, fmt.Errorf("models: schema version %d lacks migrations %v: %w", st.Version, st.Missing, ErrNotMigrated)
	}
	return st, nil
}
