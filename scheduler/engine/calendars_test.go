package engine

import (
	"fmt"
	"testing"
	"time"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestEngineSkipsAndMovesCalendarDays checks that the engine plans jobs
// with the calendars of their workspace: a daily job skips an excluded day,
// a weekly one moves to the next day, and after the calendar changes the
// engine plans with its new version. A job excluding calendars without a
// calendar source is not scheduled.
func TestEngineSkipsAndMovesCalendarDays(t *testing.T) {
	e := newEnv(t, nil)
	eng, err := New(allowLoopback(Config{InstanceID: "calendar-engine", MaxWorkers: 4}),
		Deps{Store: e.store, Clock: e.clock, Logger: quietLogger(), Calendars: catalog.New(e.store, e.clock.Now)})
	if err != nil {
		t.Fatal(err)
	}
	e.useEngine(eng)
	start := e.clock.Now().Add(time.Hour).UTC().Truncate(time.Minute)
	day := func(t time.Time) string { return t.Format("2006-01-02") }
	put := func(body string) {
		if _, err := e.store.PutCalendar(e.ctx, models.PutCalendarParams{WorkspaceID: models.DefaultWorkspaceID, Name: "holidays", Definition: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	put(fmt.Sprintf(`{"entries":[{"date":%q,"label":"Day off"}]}`, day(start)))

	daily := e.put("daily", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"day","calendars":{"exclude":["holidays"]}}}`,
		rfc(start), e.action("/d", "")))
	weekly := e.put("weekly", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"week","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}}`,
		rfc(start), e.action("/w", "")))
	e.drain()
	if j := e.job(daily); j.NextRunAt == nil || !j.NextRunAt.Equal(start.AddDate(0, 0, 1)) {
		t.Errorf("daily: next run %v, want %v", j.NextRunAt, start.AddDate(0, 0, 1))
	}
	if j := e.job(weekly); j.NextRunAt == nil || !j.NextRunAt.Equal(start.AddDate(0, 0, 1)) {
		t.Errorf("weekly: next run %v, want the next day %v", j.NextRunAt, start.AddDate(0, 0, 1))
	}
	// The daily job runs on the day after; then the calendar excludes the
	// day after that too, and the engine skips it.
	put(fmt.Sprintf(`{"entries":[{"date":%q},{"date":%q}]}`, day(start), day(start.AddDate(0, 0, 2))))
	e.clock.Set(start.AddDate(0, 0, 1))
	e.drain()
	if n := len(e.target.requests()); n != 2 {
		t.Errorf("%d requests on the day after, want 2 (daily, and weekly moved)", n)
	}
	if j := e.job(daily); j.NextRunAt == nil || !j.NextRunAt.Equal(start.AddDate(0, 0, 3)) {
		t.Errorf("daily after the change: next run %v, want %v", j.NextRunAt, start.AddDate(0, 0, 3))
	}

	// Without a calendar source, such a job is left unscheduled (logged).
	bare, err := New(allowLoopback(Config{InstanceID: "bare-engine", MaxWorkers: 4}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.useEngine(bare)
	// The write service plans its first run (it has the calendars); when
	// it is due, the engine cannot plan the job: it leaves it unscheduled
	// and runs nothing.
	other := e.put("other", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"day","calendars":{"exclude":["holidays"]}}}`,
		rfc(start.AddDate(0, 0, 5)), e.action("/o", "")))
	first := e.job(other).NextRunAt
	if first == nil {
		t.Fatal("the write service planned no first run")
	}
	e.clock.Set(*first)
	e.drain()
	if j := e.job(other); j.NextRunAt != nil || len(e.history(other)) != 0 {
		t.Errorf("scheduled without calendars: next run %v, history %v", j.NextRunAt, historyLines(e.history(other)))
	}
}
