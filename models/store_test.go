package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/models/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestMigrateIsIdempotentAndReady(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	applied, err := store.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Errorf("second Migrate applied %v, want nothing", applied)
	}
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := all[len(all)-1].Version; v != want {
		t.Errorf("SchemaVersion = %d, want %d", v, want)
	}
	if err := store.CheckReady(ctx); err != nil {
		t.Errorf("CheckReady = %v", err)
	}
}

func TestMigrationsAreNumberedInOrder(t *testing.T) {
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || all[0].Version != 1 {
		t.Fatalf("migrations start at %v, want version 1", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Version != all[i-1].Version+1 {
			t.Errorf("migration %s follows %s: versions must be consecutive", all[i].Name, all[i-1].Name)
		}
	}
}

func TestSetupCreatesFirstAdminOnce(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	needs, err := store.NeedsSetup(ctx)
	if err != nil || !needs {
		t.Fatalf("NeedsSetup on an empty database = %v, %v; want true", needs, err)
	}
	admin, err := store.CompleteSetup(ctx, models.NewUser{Username: "Ada", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	if !admin.IsAdmin {
		t.Error("setup user is not an administrator")
	}
	needs, err = store.NeedsSetup(ctx)
	if err != nil || needs {
		t.Fatalf("NeedsSetup after setup = %v, %v; want false", needs, err)
	}
	ws, err := store.WorkspacesOf(ctx, admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].ID != models.DefaultWorkspaceID {
		t.Errorf("workspaces of admin = %+v, want [default]", ws)
	}
	_, err = store.CompleteSetup(ctx, models.NewUser{Username: "mallory", Password: "another password"})
	if !errors.Is(err, models.ErrSetupDone) {
		t.Fatalf("second setup error = %v, want ErrSetupDone", err)
	}
	if _, err := store.UserByName(ctx, "mallory"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("second setup created a user: %v", err)
	}
}

func TestConcurrentSetupCreatesOneAdmin(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			_, err := store.CompleteSetup(ctx, models.NewUser{Username: "admin" + string(rune('a'+i)), Password: "password123"})
			errs <- err
		}()
	}
	ok := 0
	for range 4 {
		err := <-errs
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, models.ErrSetupDone):
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d setups succeeded, want exactly 1", ok)
	}
}

func TestCreateUserValidation(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	tests := []struct {
		name  string
		in    models.NewUser
		field string
		msg   string
	}{
		{"empty name", models.NewUser{Username: "", Password: "password123"}, "username", "is required"},
		{"bad name", models.NewUser{Username: "has space", Password: "password123"}, "username", "must be 1 to 64 letters"},
		{"long name", models.NewUser{Username: strings.Repeat("a", 65), Password: "password123"}, "username", "must be 1 to 64 letters"},
		{"no password", models.NewUser{Username: "bob"}, "password", "is required"},
		{"short password", models.NewUser{Username: "bob", Password: "short"}, "password", "at least 8 characters"},
		{"long password", models.NewUser{Username: "bob", Password: strings.Repeat("x", 73)}, "password", "at most 72 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := store.CreateUser(ctx, tt.in)
			var ve *problem.List
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *problem.List", err)
			}
			if got := ve.For(tt.field); !strings.Contains(got, tt.msg) {
				t.Errorf("%s: %q, want it to contain %q", tt.field, got, tt.msg)
			}
		})
	}
	if _, err := store.UserByName(ctx, "bob"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("an invalid user was stored: %v", err)
	}
}

func TestCreateUserNamesAreCaseInsensitive(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	if _, err := store.CreateUser(ctx, models.NewUser{Username: "Grace", Password: "password123"}); err != nil {
		t.Fatal(err)
	}
	_, err := store.CreateUser(ctx, models.NewUser{Username: "grace", Password: "password456"})
	var ve *problem.List
	if !errors.As(err, &ve) || ve.For("username") != "is already taken" {
		t.Fatalf("duplicate name error = %v, want username: is already taken", err)
	}
	u, err := store.UserByName(ctx, "GRACE")
	if err != nil || u.Username != "Grace" {
		t.Fatalf("UserByName(GRACE) = %+v, %v", u, err)
	}
}

func TestAuthenticate(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	created, err := store.CreateUser(ctx, models.NewUser{Username: "linus", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	if u, err := store.Authenticate(ctx, "LINUS", "password123"); err != nil || u.ID != created.ID {
		t.Fatalf("right password: %+v, %v", u, err)
	}
	if _, err := store.Authenticate(ctx, "linus", "wrong password"); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("wrong password: %v, want ErrBadCredentials", err)
	}
	if _, err := store.Authenticate(ctx, "nobody", "password123"); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("unknown user: %v, want ErrBadCredentials", err)
	}
	if err := store.SetUserDisabled(ctx, created.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Authenticate(ctx, "linus", "password123"); !errors.Is(err, models.ErrUserDisabled) {
		t.Errorf("disabled user: %v, want ErrUserDisabled", err)
	}
	if err := store.SetUserDisabled(ctx, 99999, true); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("disable unknown user: %v, want ErrNotFound", err)
	}
}

// newCollection creates a collection in the default workspace, creating
// the workspace (through a first user) when there is none yet.
func newCollection(t testing.TB, store *models.Store, group, name string) *models.JobCollection {
	t.Helper()
	if needs, _ := store.NeedsSetup(context.Background()); needs {
		if _, err := store.CreateUser(context.Background(), models.NewUser{Username: "owner", Password: "password123"}); err != nil && !strings.Contains(err.Error(), "taken") {
			t.Fatal(err)
		}
	}
	c := &models.JobCollection{Name: name, Location: "West Europe"}
	if err := store.CreateCollection(context.Background(), models.DefaultWorkspaceID, group, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// saveJob stores w with SaveJob, the store's write of one job that the
// catalog makes, and returns the stored job.
func saveJob(t testing.TB, store *models.Store, w models.JobWrite) *models.Job {
	t.Helper()
	j, _, err := store.SaveJob(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestCollectionsAndImplicitResourceGroups(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	if _, err := store.CompleteSetup(ctx, models.NewUser{Username: "admin", Password: "password123"}); err != nil {
		t.Fatal(err)
	}
	a := newCollection(t, store, "Prod", "nightly")
	b := newCollection(t, store, "prod", "hourly") // same group, other casing
	if a.ResourceGroupID != b.ResourceGroupID {
		t.Errorf("groups Prod and prod are different (%d, %d); names are case-insensitive", a.ResourceGroupID, b.ResourceGroupID)
	}
	if a.SKU != "Standard" || a.State != "Enabled" || string(a.Tags) != "{}" {
		t.Errorf("defaults: sku %q state %q tags %s", a.SKU, a.State, a.Tags)
	}
	err := store.CreateCollection(ctx, models.DefaultWorkspaceID, "PROD", &models.JobCollection{Name: "NIGHTLY"})
	if !errors.Is(err, models.ErrConflict) {
		t.Errorf("duplicate collection: %v, want ErrConflict", err)
	}
	got, err := store.Collection(ctx, models.DefaultWorkspaceID, "pRoD", "Nightly")
	if err != nil || got.ID != a.ID {
		t.Fatalf("Collection lookup = %+v, %v", got, err)
	}
	if _, err := store.Collection(ctx, models.DefaultWorkspaceID, "prod", "missing"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("missing collection: %v, want ErrNotFound", err)
	}
	err = store.CreateCollection(ctx, "no-such-workspace", "prod", &models.JobCollection{Name: "x"})
	if !errors.Is(err, models.ErrNotFound) {
		t.Errorf("collection in a missing workspace: %v, want ErrNotFound", err)
	}
	err = store.CreateCollection(ctx, models.DefaultWorkspaceID, "prod", &models.JobCollection{Name: "x", SKU: "Gold"})
	if err == nil || !strings.Contains(err.Error(), "check constraint") {
		t.Errorf("sku Gold: %v, want a check constraint violation", err)
	}
}

func TestJobDefinitionRoundTripsExactly(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	c := newCollection(t, store, "rg", "jobs")
	def := "{\n  \"startTime\": \"2026-01-01T00:00:00Z\",\n  \"action\": {\"type\": \"Http\", \"request\": {\"uri\": \"https://example.com\", \"method\": \"GET\"}},\n  \"recurrence\": {\"frequency\": \"Week\", \"schedule\": {\"weekDays\": [\"Monday\"]}}, \"zz\": 1, \"aa\": 2\n}"
	next := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	j, created, err := store.SaveJob(ctx, models.JobWrite{CollectionID: c.ID, Name: "Weekly", Definition: json.RawMessage(def), NextRunAt: &next})
	if err != nil || !created {
		t.Fatalf("SaveJob = %v, %v; want created", created, err)
	}
	got, err := store.JobByName(ctx, c.ID, "weekly")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Definition) != def {
		t.Errorf("definition changed on the way through the database:\n got %s\nwant %s", got.Definition, def)
	}
	if got.State != "enabled" || !got.NextRunAt.Equal(next) {
		t.Errorf("state %q next %v", got.State, got.NextRunAt)
	}
	j2, created, err := store.SaveJob(ctx, models.JobWrite{CollectionID: c.ID, Name: "WEEKLY", Definition: json.RawMessage(`{"action":{}}`), State: "disabled"})
	if err != nil || created {
		t.Fatalf("replace: created=%v err=%v; want replaced", created, err)
	}
	if j2.ID != j.ID {
		t.Errorf("replace changed the id from %d to %d", j.ID, j2.ID)
	}
	bad := models.JobWrite{CollectionID: c.ID, Name: "bad", Definition: json.RawMessage(`{}`), State: "running"}
	if _, _, err := store.SaveJob(ctx, bad); err == nil || !strings.Contains(err.Error(), "check constraint") {
		t.Errorf("state running: %v, want a check constraint violation", err)
	}
	if err := store.DeleteJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteJob(ctx, j.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
}

func TestHistoryIsPagedNewestFirstByKeyset(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	c := newCollection(t, store, "rg", "hist")
	j := saveJob(t, store, models.JobWrite{CollectionID: c.ID, Name: "j", Definition: json.RawMessage(`{}`)})
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 7 {
		start := base.Add(time.Duration(i/2) * time.Minute) // pairs share a start time
		e := &models.HistoryEntry{JobID: j.ID, StartTime: start, ExpectedExecutionTime: start,
			ActionName: "MainAction", Status: "Completed", RepeatCount: int64(i)}
		if err := store.AddHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var seen []int64
	var lastStart time.Time
	var lastID int64
	for {
		page, err := store.History(ctx, models.HistoryQuery{JobID: j.ID, BeforeStart: lastStart, BeforeID: lastID, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			seen = append(seen, e.RepeatCount)
		}
		lastStart, lastID = page[len(page)-1].StartTime, page[len(page)-1].ID
	}
	want := []int64{6, 5, 4, 3, 2, 1, 0}
	if len(seen) != len(want) {
		t.Fatalf("paged through %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("paged through %v, want %v", seen, want)
		}
	}
	bad := &models.HistoryEntry{JobID: j.ID, StartTime: base, ExpectedExecutionTime: base, ActionName: "MainAction", Status: "Running"}
	if err := store.AddHistory(ctx, bad); err == nil {
		t.Error("status Running was accepted")
	}
}

func TestCollectionSummariesCountJobsOfMembersOnly(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	admin, err := store.CompleteSetup(ctx, models.NewUser{Username: "admin", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollection(t, store, "rg", "c1")
	for i, state := range []string{"enabled", "enabled", "disabled"} {
		saveJob(t, store, models.JobWrite{CollectionID: c.ID, Name: "j" + string(rune('a'+i)), Definition: json.RawMessage(`{}`), State: jobdef.State(state)})
	}
	rows, err := store.CollectionSummaries(ctx, admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Enabled != 2 || rows[0].Disabled != 1 || rows[0].Name != "c1" || rows[0].ResourceGroup != "rg" {
		t.Fatalf("summaries = %+v", rows)
	}
	rows, err = store.CollectionSummaries(ctx, 424242)
	if err != nil || len(rows) != 0 {
		t.Fatalf("a non-member sees %+v, %v", rows, err)
	}
}

func TestAPITokens(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	alice, err := store.CreateUser(ctx, models.NewUser{Username: "alice", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	rec, token, err := store.CreateToken(ctx, alice.ID, " ci ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, "sked_") || len(token) < 40 || rec.Name != "ci" || !strings.HasPrefix(token, rec.Prefix) {
		t.Fatalf("token %q record %+v", token, rec)
	}
	if strings.Contains(string(rec.TokenHash), token) {
		t.Fatal("the token itself is stored")
	}
	u, err := store.AuthenticateToken(ctx, token)
	if err != nil || u.ID != alice.ID {
		t.Fatalf("AuthenticateToken = %+v, %v", u, err)
	}
	list, err := store.TokensOf(ctx, alice.ID)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil {
		t.Fatalf("TokensOf = %+v, %v; want one token with its last use", list, err)
	}
	for _, bad := range []string{"", "sked_", token + "x", "Bearer " + token, strings.TrimPrefix(token, "sked_")} {
		if _, err := store.AuthenticateToken(ctx, bad); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("token %q: %v, want ErrBadCredentials", bad, err)
		}
	}
	if err := store.RevokeToken(ctx, bob.ID, rec.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("bob revoking alice's token: %v, want ErrNotFound", err)
	}
	if err := store.RevokeToken(ctx, alice.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.RevokeToken(ctx, alice.ID, rec.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if _, err := store.AuthenticateToken(ctx, token); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("revoked token: %v, want ErrBadCredentials", err)
	}
	_, token2, err := store.CreateToken(ctx, bob.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetUserDisabled(ctx, bob.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := store.AuthenticateToken(ctx, token2); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("token of a disabled user: %v, want ErrBadCredentials", err)
	}
	if _, _, err := store.CreateToken(ctx, alice.ID, strings.Repeat("n", 101)); err == nil {
		t.Error("a 101-character name was accepted")
	}
}

// storeAndDB returns a store on a new test database and a plain
// connection pool to the same database (for the statements a test runs
// itself), closed when the test ends.
func storeAndDB(t testing.TB) (*models.Store, *sql.DB) {
	t.Helper()
	return storeAndDBWith(t, models.Options{})
}

// storeAndDBWith is storeAndDB with the store opened with opts.
func storeAndDBWith(t testing.TB, opts models.Options) (*models.Store, *sql.DB) {
	t.Helper()
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, opts)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return store, db
}

// planWithoutSeqScan returns the plan (EXPLAIN's lines, joined by
// newlines) of query with args on db, with sequential scans off: a test
// table is too small for the planner to prefer an index otherwise. The
// setting holds only in the transaction it plans in, rolled back before
// it returns.
func planWithoutSeqScan(t testing.TB, db *sql.DB, query string, args ...any) string {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(`EXPLAIN `+query, args...)
	return planLines(t, rows, err)
}

// planLines returns the lines of an EXPLAIN's result rows (the query's
// error failing t), joined by newlines; it closes rows.
func planLines(t testing.TB, rows *sql.Rows, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
