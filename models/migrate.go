package models

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"sked/migrations"
)

// migrationLockID is the advisory lock that serialises migrations when
// several instances start at once.
const migrationLockID = 0x736b6564 // "sked"

// Migration is one numbered SQL file from the migrations package.
type Migration struct {
	Version int
	Name    string
	SQL     string
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
		out = append(out, Migration{Version: version, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Migrate applies every embedded migration that the database has not seen
// yet, each in its own transaction, and records it in schema_migrations. It
// holds a PostgreSQL advisory lock meanwhile, so concurrent starts of several
// instances migrate once. It returns the versions it applied.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	var applied []int
	err = s.db.WithContext(ctx).Connection(func(conn *gorm.DB) error {
		if err := conn.Exec("SELECT pg_advisory_lock(?)", migrationLockID).Error; err != nil {
			return fmt.Errorf("models: migrate: lock: %w", err)
		}
		defer conn.Exec("SELECT pg_advisory_unlock(?)", migrationLockID)
		if err := conn.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`).Error; err != nil {
			return fmt.Errorf("models: migrate: create schema_migrations: %w", err)
		}
		done := map[int]bool{}
		var versions []int
		if err := conn.Raw("SELECT version FROM schema_migrations").Scan(&versions).Error; err != nil {
			return fmt.Errorf("models: migrate: read versions: %w", err)
		}
		for _, v := range versions {
			done[v] = true
		}
		for _, m := range all {
			if done[m.Version] {
				continue
			}
			err := conn.Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec(m.SQL).Error; err != nil {
					return err
				}
				return tx.Exec("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.Version, m.Name).Error
			})
			if err != nil {
				return fmt.Errorf("models: migrate %s: %w", m.Name, err)
			}
			applied = append(applied, m.Version)
		}
		return nil
	})
	return applied, err
}

// SchemaVersion returns the highest applied migration version, or 0 when
// none has been applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var version int
	err := s.db.WithContext(ctx).Raw(`SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version).Error
	if err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return 0, nil
		}
		return 0, fmt.Errorf("models: schema version: %w", err)
	}
	return version, nil
}

// CheckReady returns nil when the database answers, accepts writes and
// every embedded migration has been applied; else an error saying why:
// wrapping ErrUnavailable (no answer), ErrReadOnly (a standby or a
// read-only server, see checkWritable in readiness.go) or ErrNotMigrated
// (the schema is behind).
func (s *Store) CheckReady(ctx context.Context) error {
	if err := s.checkWritable(ctx); err != nil {
		return err
	}
	all, err := Migrations()
	if err != nil {
		return err
	}
	have, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if want := all[len(all)-1].Version; have < want {
		return fmt.Errorf("models: schema version %d, want %d: %w", have, want, ErrNotMigrated)
	}
	return nil
}
