package catalog_test

import (
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// calendarJob is a daily job at 09:00 UTC that excludes the calendar
// "holidays".
const calendarJob = `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},
	"startTime":"2026-12-20T09:00:00Z",
	"recurrence":{"frequency":"day","calendars":{"exclude":["holidays"],"onExcluded":"skip"}}}`

// TestJobsNeedTheirCalendars checks that a job naming a calendar its
// workspace lacks is refused naming the field, with nothing written, and
// is accepted once the calendar exists; an import reports the same.
func TestJobsNeedTheirCalendars(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{"location":"westus","properties":{"sku":{"name":"Standard"}}}`)
	before := e.fingerprint()
	_, _, err := e.cat.PutJob(e.ctx, catalog.System("test"), coll, "daily", []byte(calendarJob))
	ve := problem.As(err)
	if ve == nil || !strings.Contains(ve.Error(), `recurrence.calendars.exclude[0]: there is no calendar named "holidays" in this workspace`) {
		t.Fatalf("got %v", err)
	}
	if e.fingerprint() != before {
		t.Fatal("a refused job changed the database")
	}
	rep, err := e.importFile(`[{"name":"daily","properties":`+calendarJob+`}]`, catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.Jobs[0].Problems, "\n"); !strings.Contains(got, `recurrence.calendars.exclude[0]`) {
		t.Errorf("import problems %q", got)
	}
	if _, _, err := e.cat.PutCalendar(e.ctx, catalog.Actor{UserID: e.user.ID}, models.DefaultWorkspaceID, "Holidays", []byte(`{"entries":[{"date":"2026-12-25","label":"Christmas Day"}]}`)); err != nil {
		t.Fatal(err)
	}
	e.putJob(coll, "daily", calendarJob)
	rep, err = e.importFile(`[{"name":"daily2","properties":`+calendarJob+`}]`, catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if j := rep.Jobs[0]; len(j.Problems) != 0 || !strings.Contains(j.Description, "except on Holidays") {
		t.Errorf("import report %+v", j)
	}
	cals, err := e.cat.WorkspaceCalendars(e.ctx, models.DefaultWorkspaceID)
	if err != nil || cals["holidays"] == nil {
		t.Fatalf("workspace calendars %v %v", cals, err)
	}
}

// TestCalendarChangeReplansJobs checks that changing a calendar moves the
// next run of the enabled jobs that exclude it (as the engine had planned
// it) and leaves a job already due alone.
func TestCalendarChangeReplansJobs(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{"location":"westus","properties":{"sku":{"name":"Standard"}}}`)
	if _, _, err := e.cat.PutCalendar(e.ctx, catalog.Actor{UserID: e.user.ID}, models.DefaultWorkspaceID, "holidays", []byte(`{"entries":[]}`)); err != nil {
		t.Fatal(err)
	}
	planned := e.putJob(coll, "planned", calendarJob)
	due := e.putJob(coll, "due", calendarJob)
	// As the engine plans them: the schedule base and the next run.
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e.exec(`UPDATE jobs SET schedule_base = $1, needs_schedule = false, next_run_at = $2 WHERE id = $3`, base, time.Date(2026, 12, 25, 9, 0, 0, 0, time.UTC), planned.ID)
	e.exec(`UPDATE jobs SET schedule_base = $1, needs_schedule = false, next_run_at = $2 WHERE id = $3`, base, testNow.Add(-time.Second), due.ID)
	// The catalog's clock is testNow (2026-11-21 12:00); pretend the next
	// planned run is 12-25 by excluding everything up to 12-24.
	body := `{"entries":[{"from":"2026-11-21","to":"2026-12-25","label":"Closed"}]}`
	if _, _, err := e.cat.PutCalendar(e.ctx, catalog.Actor{UserID: e.user.ID}, models.DefaultWorkspaceID, "holidays", []byte(body)); err != nil {
		t.Fatal(err)
	}
	var next, dueNext time.Time
	if err := e.db.QueryRow(`SELECT next_run_at FROM jobs WHERE id = $1`, planned.ID).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 12, 26, 9, 0, 0, 0, time.UTC); !next.Equal(want) {
		t.Errorf("planned job: next run %v, want %v", next, want)
	}
	if err := e.db.QueryRow(`SELECT next_run_at FROM jobs WHERE id = $1`, due.ID).Scan(&dueNext); err != nil {
		t.Fatal(err)
	}
	if !dueNext.Equal(testNow.Add(-time.Second)) {
		t.Errorf("a due job was moved to %v", dueNext)
	}
}

// TestCalendarNamesOfPagesAreReserved checks that "new" and "import",
// which the calendar pages use as path segments, cannot name a calendar.
func TestCalendarNamesOfPagesAreReserved(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"new", "Import"} {
		_, _, err := e.cat.PutCalendar(e.ctx, catalog.Actor{UserID: e.user.ID}, models.DefaultWorkspaceID, name, []byte(`{"entries":[]}`))
		if ve := problem.As(err); ve == nil || !strings.Contains(ve.Error(), "name: ") || !strings.Contains(ve.Error(), "is reserved") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
