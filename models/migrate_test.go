package models_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"sked/migrations"
	"sked/models"
	"sked/models/testdb"
)

// migrationFS returns the embedded migrations up to and including upTo
// (all of them when upTo is 0), with extra files added, and the newest
// embedded version.
func migrationFS(t *testing.T, upTo int, extra map[string]string) (fstest.MapFS, int) {
	t.Helper()
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, m := range all {
		if upTo > 0 && m.Version > upTo {
			continue
		}
		body, err := fs.ReadFile(migrations.FS, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[m.Name] = &fstest.MapFile{Data: body}
	}
	for name, body := range extra {
		out[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return out, all[len(all)-1].Version
}

// openWith opens a store on dsn as release, with the migrations of fsys
// (nil: the embedded ones).
func openWith(t *testing.T, dsn, release string, fsys fs.FS) *models.Store {
	t.Helper()
	opts := testdb.Options()
	opts.Release = release
	opts.InstanceDeadAfter = 20 * time.Second
	store := testdb.Open(t, dsn, opts)
	if fsys != nil {
		store.UseMigrations(fsys)
	}
	return store
}

// beat records a heartbeat of instance id now by the database's clock (a
// live instance), moved an hour back when live is false (a dead one).
func beat(t *testing.T, store *models.Store, id, release string, knows int, live bool) {
	t.Helper()
	if _, err := store.Heartbeat(context.Background(), models.Heartbeat{ID: id, DeadAfter: 20 * time.Second,
		Version: release, SchemaVersion: knows}); err != nil {
		t.Fatal(err)
	}
	if live {
		return
	}
	db, err := sql.Open("pgx", store.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE engine_instances SET heartbeat_at = heartbeat_at - interval '1 hour' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

// TestContractMigrationWaitsForOlderInstances: a contracting migration
// runs only when no live instance knows less than it; Migrate applies the
// expanding ones before it, stops before it (and what follows), reports
// the blocking instances, and the schema counts as ready meanwhile. Dead
// instances and instances that know it do not block it.
func TestContractMigrationWaitsForOlderInstances(t *testing.T) {
	ctx := context.Background()
	_, last := migrationFS(t, 0, nil)
	expand, contract, after := last+1, last+2, last+3
	fsys, _ := migrationFS(t, 0, map[string]string{
		fmt.Sprintf("%04d_guard_expand.sql", expand): "-- expanding: the marker below is not the first line\n" + models.ContractMarker + "\nCREATE TABLE guard (old_col integer, new_col integer);\n",
		fmt.Sprintf("%04d_guard_drop.sql", contract): models.ContractMarker + "\nALTER TABLE guard DROP COLUMN old_col;\n",
		fmt.Sprintf("%04d_guard_after.sql", after):   models.ContractMarker + " \r\nCREATE TABLE guard_after (a integer);\n",
	})
	dsn := testdb.DSN(t)
	store := openWith(t, dsn, "v-new", fsys)

	beat(t, store, "old-live", "v-old", expand, true)
	beat(t, store, "pre-versions", "", 0, true)
	beat(t, store, "old-dead", "v-older", 1, false)
	beat(t, store, "new-live", "v-new", after, true)

	rep, err := store.ApplyMigrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Applied, []int{expand}) || rep.Held == nil {
		t.Fatalf("applied %v, held %v; want [%d] and a held contract", rep.Applied, rep.Held, expand)
	}
	var ids []string
	for _, b := range rep.Held.Blockers {
		ids = append(ids, b.ID)
	}
	if rep.Held.Migration.Version != contract || !slices.Equal(rep.Held.Waiting, []int{contract, after}) ||
		!slices.Equal(ids, []string{"old-live", "pre-versions"}) {
		t.Fatalf("held %+v", rep.Held)
	}
	want := fmt.Sprintf("contract migration %04d_guard_drop.sql (and 1 after it) waits for 2 instance(s) of an older release to stop: "+
		"old-live (sked v-old, knows migrations up to %d), pre-versions (release unknown, knows migrations up to 0)", contract, expand)
	if got := rep.Held.String(); got != want {
		t.Errorf("held says\n%s\nwant\n%s", got, want)
	}
	if has, err := store.HasColumn(ctx, "guard", "old_col"); err != nil || !has {
		t.Fatalf("guard.old_col after the held contract: %v, %v", has, err)
	}
	if v, err := store.SchemaVersion(ctx); err != nil || v != expand {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, expand)
	}
	// The instance serves meanwhile: its code works without its contracts.
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady with held contracts = %v", err)
	}
	st, err := store.SchemaStatus(ctx)
	if err != nil || !slices.Equal(st.Held, []int{contract, after}) || len(st.Missing) != 0 || st.TooNew != nil {
		t.Errorf("SchemaStatus = %+v, %v", st, err)
	}

	// Still held on the next start, applying nothing.
	rep, err = store.ApplyMigrations(ctx)
	if err != nil || len(rep.Applied) != 0 || rep.Held == nil || len(rep.Held.Blockers) != 2 {
		t.Fatalf("second ApplyMigrations: %+v, %v", rep, err)
	}

	// One older instance left: still held.
	if gone, err := store.RemoveInstance(ctx, "old-live"); err != nil || !gone {
		t.Fatalf("RemoveInstance: %v, %v", gone, err)
	}
	rep, err = store.ApplyMigrations(ctx)
	if err != nil || len(rep.Applied) != 0 || rep.Held == nil || len(rep.Held.Blockers) != 1 || rep.Held.Blockers[0].ID != "pre-versions" {
		t.Fatalf("ApplyMigrations with one older instance: %+v, %v", rep, err)
	}

	// The last older instance stops: the contracts run.
	if gone, err := store.RemoveInstance(ctx, "pre-versions"); err != nil || !gone {
		t.Fatalf("RemoveInstance: %v, %v", gone, err)
	}
	rep, err = store.ApplyMigrations(ctx)
	if err != nil || !slices.Equal(rep.Applied, []int{contract, after}) || rep.Held != nil {
		t.Fatalf("ApplyMigrations without older instances: %+v, %v", rep, err)
	}
	if has, err := store.HasColumn(ctx, "guard", "old_col"); err != nil || has {
		t.Fatalf("guard.old_col after the contract: %v, %v", has, err)
	}
	rel, err := store.MigrationReleases(ctx)
	if err != nil || rel[expand] != "v-new" || rel[contract] != "v-new" || rel[after] != "v-new" {
		t.Errorf("applied_by %v, %v", rel, err)
	}
	st, err = store.SchemaStatus(ctx)
	if err != nil || st.Version != after || len(st.Held) != 0 || len(st.Missing) != 0 {
		t.Errorf("SchemaStatus = %+v, %v", st, err)
	}
}

// TestExpandingMigrationBehindAHeldContractFails: a release's expanding
// migration numbered after a contracting one that waits cannot run, and
// the release cannot work without it: Migrate fails, naming both.
func TestExpandingMigrationBehindAHeldContractFails(t *testing.T) {
	ctx := context.Background()
	_, last := migrationFS(t, 0, nil)
	fsys, _ := migrationFS(t, 0, map[string]string{
		fmt.Sprintf("%04d_drop.sql", last+1):   models.ContractMarker + "\nCREATE TABLE c1 (a integer);\n",
		fmt.Sprintf("%04d_expand.sql", last+2): "CREATE TABLE e2 (a integer);\n",
	})
	store := openWith(t, testdb.DSN(t), "v-new", fsys)
	beat(t, store, "old", "v-old", last, true)
	rep, err := store.ApplyMigrations(ctx)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("migration %04d_expand.sql must run", last+2)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("%04d_drop.sql", last+1)) || len(rep.Applied) != 0 {
		t.Fatalf("ApplyMigrations = %+v, %v", rep, err)
	}
	if v, err := store.SchemaVersion(ctx); err != nil || v != last {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, last)
	}
	if err := store.CheckReady(ctx); !errors.Is(err, models.ErrNotMigrated) {
		t.Errorf("CheckReady = %v, want ErrNotMigrated", err)
	}
}

// TestNewerSchemaIsRefused: a release that finds a migration newer than
// every one it knows refuses the database, applies nothing, and names the
// release that applied it; an instance already running beside that
// release stays ready and says so in SchemaStatus.
func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	_, last := migrationFS(t, 0, nil)
	dsn := testdb.DSN(t)
	running := openWith(t, dsn, "1a2b3c4", nil)
	newer, _ := migrationFS(t, 0, map[string]string{
		fmt.Sprintf("%04d_next.sql", last+1):  "CREATE TABLE next1 (a integer);\n",
		fmt.Sprintf("%04d_next2.sql", last+2): "CREATE TABLE next2 (a integer);\n",
	})
	if _, err := openWith(t, dsn, "5e6f7a8", newer).ApplyMigrations(ctx); err != nil {
		t.Fatal(err)
	}

	_, err := openWith(t, dsn, "1a2b3c4", nil).ApplyMigrations(ctx)
	want := fmt.Sprintf("database schema is at migration %d (applied by sked 5e6f7a8); this release (sked 1a2b3c4) knows migrations up to %d: run sked 5e6f7a8 or newer",
		last+2, last)
	if !errors.Is(err, models.ErrSchemaTooNew) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("ApplyMigrations on a newer schema = %v\nwant …%s", err, want)
	}
	var tooNew *models.SchemaTooNewError
	if !errors.As(err, &tooNew) || tooNew.AppliedBy != "5e6f7a8" || tooNew.Version != last+2 || tooNew.Known != last {
		t.Errorf("error %#v", err)
	}

	if err := running.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady of an instance beside a newer release = %v", err)
	}
	st, err := running.SchemaStatus(ctx)
	if err != nil || st.TooNew == nil || !strings.HasSuffix(st.TooNew.Error(), want) {
		t.Errorf("SchemaStatus = %+v, %v", st, err)
	}

	// Without a recorded release the message says which migration is needed.
	unknown := (&models.SchemaTooNewError{Version: 40, Known: 33}).Error()
	if unknown != "database schema is at migration 40; this release knows migrations up to 33: run a release that knows migration 40" {
		t.Errorf("message without releases: %s", unknown)
	}
}

// TestMigrationReleaseIsRecorded: a new database records the release that
// applied every migration, and one migrated first by a release that
// inserts (version, name) only (before schema_migrations had applied_by)
// keeps ” for those and records the release for the rest.
func TestMigrationReleaseIsRecorded(t *testing.T) {
	ctx := context.Background()
	_, last := migrationFS(t, 0, nil)

	fresh := openWith(t, testdb.EmptyDSN(t), "r1", nil)
	applied, err := fresh.Migrate(ctx)
	if err != nil || len(applied) != last {
		t.Fatalf("Migrate on an empty database: %v, %v", applied, err)
	}
	rel, err := fresh.MigrationReleases(ctx)
	if err != nil || len(rel) != last {
		t.Fatalf("releases %v, %v", rel, err)
	}
	for v, by := range rel {
		if by != "r1" {
			t.Errorf("migration %d applied by %q, want r1", v, by)
		}
	}

	dsn := testdb.EmptyDSN(t)
	const before = 32 // the newest migration before schema_migrations.applied_by
	old, _ := migrationFS(t, before, nil)
	if _, err := openWith(t, dsn, "r0", old).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	store := openWith(t, dsn, "r1", nil)
	applied, err = store.Migrate(ctx)
	if err != nil || len(applied) != last-before {
		t.Fatalf("Migrate after the previous release: %v, %v", applied, err)
	}
	rel, err = store.MigrationReleases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for v, by := range rel {
		if want := map[bool]string{true: "", false: "r1"}[v <= before]; by != want {
			t.Errorf("migration %d applied by %q, want %q", v, by, want)
		}
	}
}
