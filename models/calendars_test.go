package models_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
	"sked/models/testdb"
)

const calDef = `{"timeZone":"Europe/Berlin","entries":[{"date":"2026-12-24","label":"Christmas Eve"}]}`

func TestCalendarPutGetListDelete(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	newCollection(t, store, "rg", "jc") // creates a user
	created, err := store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "Holidays-DE", Definition: []byte(calDef)})
	if err != nil || !created {
		t.Fatalf("create: %v (created %v)", err, created)
	}
	c, err := store.CalendarByName(ctx, models.DefaultWorkspaceID, "holidays-de")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Holidays-DE" || c.Version != 1 || !strings.Contains(string(c.Definition), "Christmas Eve") {
		t.Errorf("stored %+v", c)
	}
	// The same definition again keeps the version; a change bumps it and
	// keeps the name's spelling.
	if created, err := store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "HOLIDAYS-de", Definition: []byte(calDef)}); err != nil || created {
		t.Fatalf("replace unchanged: %v (created %v)", err, created)
	}
	if c, _ := store.CalendarByName(ctx, models.DefaultWorkspaceID, "holidays-de"); c.Version != 1 {
		t.Errorf("unchanged put bumped the version to %d", c.Version)
	}
	if _, err := store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "holidays-de", Definition: []byte(`{"entries":[]}`)}); err != nil {
		t.Fatal(err)
	}
	c, _ = store.CalendarByName(ctx, models.DefaultWorkspaceID, "holidays-de")
	if c.Version != 2 || c.Name != "Holidays-DE" || string(c.Definition) != `{"entries": []}` {
		t.Errorf("after replace: version %d, name %q, def %s", c.Version, c.Name, c.Definition)
	}
	if _, err := store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "a-first", Definition: []byte(`{"entries":[]}`)}); err != nil {
		t.Fatal(err)
	}
	list, err := store.CalendarsOf(ctx, models.DefaultWorkspaceID)
	if err != nil || len(list) != 2 || list[0].Name != "a-first" || list[1].Name != "Holidays-DE" {
		t.Errorf("list: %v %+v", err, list)
	}
	if _, err := store.PutCalendar(ctx, models.PutCalendarParams{WorkspaceID: "nope", Name: "x", Definition: []byte(`{"entries":[]}`)}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown workspace: %v, want ErrNotFound", err)
	}
	if _, err := store.CalendarByName(ctx, models.DefaultWorkspaceID, "missing"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("missing calendar: %v, want ErrNotFound", err)
	}
	if err := store.DeleteCalendar(ctx, models.DefaultWorkspaceID, "HOLIDAYS-DE"); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteCalendar(ctx, models.DefaultWorkspaceID, "holidays-de"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
}

func TestCalendarNameCheckedByTheDatabase(t *testing.T) {
	store := testdb.Store(t)
	if _, err := store.PutCalendar(context.Background(), models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "bad name", Definition: []byte(`{"entries":[]}`)}); err == nil {
		t.Error("a name with a space was stored")
	}
}

func TestJobsUsingCalendar(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	coll := newCollection(t, store, "rg", "jc")
	def := func(names ...string) []byte {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = fmt.Sprintf("%q", n)
		}
		return []byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},` +
			`"recurrence":{"frequency":"day","interval":1,"calendars":{"exclude":[` + strings.Join(q, ",") + `],"onExcluded":"skip"}}}`)
	}
	for name, d := range map[string][]byte{
		"job2":  def("Holidays-DE"),
		"job1":  def("other", "holidays-de"),
		"plain": []byte(storedDef),
		"near":  def("holidays-d"),
	} {
		if _, _, err := store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: name, Definition: d}); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := store.JobsUsingCalendar(ctx, models.DefaultWorkspaceID, "HOLIDAYS-de")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, r.String())
	}
	if strings.Join(got, " ") != "rg/jc/job1 rg/jc/job2" {
		t.Errorf("jobs using holidays-de: %v", got)
	}
	// Another workspace's jobs do not count.
	if refs, err := store.JobsUsingCalendar(ctx, "other", "holidays-de"); err != nil || len(refs) != 0 {
		t.Errorf("other workspace: %v %v", refs, err)
	}
	// The query can use the index (checked with sequential scans off, as
	// a test table is too small for the planner to prefer it otherwise).
	db, err := sql.Open("pgx", store.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plan := planWithoutSeqScan(t, db, `SELECT job_id FROM job_facets f
		WHERE f.calendar_excludes @> jsonb_build_array(lower('x'::text))`)
	if !strings.Contains(plan, "job_facets_calendar_excludes_idx") {
		t.Errorf("plan does not use job_facets_calendar_excludes_idx:\n%s", plan)
	}
}

func TestForecastJobsAreTheEnabledJobsOfEnabledCollections(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	on := newCollection(t, store, "rg", "on")
	off := newCollection(t, store, "rg", "off")
	if err := store.SetCollectionStateNote(ctx, off.ID, models.CollectionDisabled, "", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, w := range []models.JobWrite{
		{CollectionID: on.ID, Name: "b", Definition: []byte(storedDef)},
		{CollectionID: on.ID, Name: "a", Definition: []byte(storedDef)},
		{CollectionID: on.ID, Name: "disabled", Definition: []byte(storedDef), State: "disabled"},
		{CollectionID: off.ID, Name: "c", Definition: []byte(storedDef)},
	} {
		if _, _, err := store.SaveJob(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := store.ForecastJobs(ctx, models.DefaultWorkspaceID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.Path())
		if j.ScheduleBase == nil || len(j.Definition) == 0 {
			t.Errorf("%s: %+v", j.Path(), j)
		}
	}
	if strings.Join(got, " ") != "rg/on/a rg/on/b" {
		t.Errorf("forecast jobs %v", got)
	}
	if jobs, _ := store.ForecastJobs(ctx, models.DefaultWorkspaceID, 1); len(jobs) != 1 {
		t.Errorf("limit 1 gave %d", len(jobs))
	}
}

func TestPutCalendarVersionRefusesAStaleWriter(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	newCollection(t, store, "rg", "jc") // the default workspace
	if created, err := store.PutCalendarVersion(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "h", Definition: []byte(`{"entries":[]}`)}, 0); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	if _, err := store.PutCalendarVersion(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "H", Definition: []byte(`{"entries":[]}`)}, 0); !errors.Is(err, models.ErrConflict) {
		t.Errorf("a second creation: %v, want ErrConflict", err)
	}
	if _, err := store.PutCalendarVersion(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "h", Definition: []byte(calDef)}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutCalendarVersion(ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "h", Definition: []byte(`{"entries":[]}`)}, 1); !errors.Is(err, models.ErrConflict) {
		t.Errorf("a writer at version 1 after version 2: %v, want ErrConflict", err)
	}
	if c, _ := store.CalendarByName(ctx, models.DefaultWorkspaceID, "h"); c.Version != 2 || !strings.Contains(string(c.Definition), "Christmas Eve") {
		t.Errorf("stored %+v", c)
	}
}
