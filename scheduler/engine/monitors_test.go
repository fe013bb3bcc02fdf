package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"sked/models"
	"sked/models/monitordef"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
	"sked/scheduler/plan"
)

// monitorEnv is an env with a webhook that receives every monitor event
// of the default workspace, and helpers to write and ping monitors.
type monitorEnv struct {
	*env
	hook *hook
}

func newMonitorEnv(t *testing.T) *monitorEnv {
	t.Helper()
	e := newEnv(t, nil)
	h := newHook(t, nil)
	addWebhook(t, e.store, models.DefaultWorkspaceID, "hook", h.URL, h.secret)
	addRule(t, e.store, models.DefaultWorkspaceID, "monitors",
		`{"channel":"hook","events":["monitorMissed","monitorRecovered","monitorFailed","slowRun"]}`)
	return &monitorEnv{env: e, hook: h}
}

// putMonitor creates or replaces monitor name through the write service
// (at the env's clock) and returns it.
func (e *monitorEnv) putMonitor(name, body string) *models.Monitor {
	e.t.Helper()
	m, _, err := e.cat.PutMonitor(e.ctx, catalogtest.Actor, models.DefaultWorkspaceID, name, []byte(body))
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// ping records a ping of kind for m at the env's clock.
func (e *monitorEnv) ping(m *models.Monitor, kind monitordef.PingKind, message string) {
	e.t.Helper()
	if _, err := e.store.RecordPing(e.ctx, models.MonitorTokenHash(m.Token), string(kind), e.clock.Now(), message); err != nil {
		e.t.Fatal(err)
	}
}

// evaluate runs one round of the engine's monitor evaluation and returns
// when it wants the next.
func (e *monitorEnv) evaluate() time.Time {
	e.t.Helper()
	next, err := e.engine.evaluateMonitors(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return next
}

// status returns m's stored status.
func (e *monitorEnv) status(name string) string {
	e.t.Helper()
	m, err := e.store.MonitorByName(e.ctx, models.DefaultWorkspaceID, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return m.Status
}

// events sends what is due and returns the hook's events, sorted.
func (e *monitorEnv) events() []string {
	e.t.Helper()
	e.sendAll()
	return e.hook.summary()
}

// nextHour is the first whole hour after t.
func nextHour(t time.Time) time.Time { return t.Truncate(time.Hour).Add(time.Hour) }

func TestMonitorMissedOnceThenRecovered(t *testing.T) {
	e := newMonitorEnv(t)
	m := e.putMonitor("backup", `{"schedule":{"frequency":"hour","schedule":{"minutes":[0]}},"grace":"PT5M"}`)
	t1 := nextHour(e.clock.Now())

	// Before T + grace nothing is decided; the engine wants to look at
	// T + grace exactly (its timer).
	e.clock.Set(t1.Add(5*time.Minute - time.Second))
	if next := e.evaluate(); !next.Equal(t1.Add(5 * time.Minute)) {
		t.Errorf("next look at %v, want %v", next, t1.Add(5*time.Minute))
	}
	if got := e.status("backup"); got != models.MonitorNew {
		t.Errorf("status %s before the grace ended", got)
	}
	// At T + grace: missed, monitorMissed once, down.
	e.clock.Set(t1.Add(5 * time.Minute))
	e.evaluate()
	e.evaluate()
	if got := e.status("backup"); got != models.MonitorDown {
		t.Errorf("status %s after a miss", got)
	}
	wantSummary(t, "after the miss", e.events(), "monitorMissed monitor backup")
	// The next occurrence missed too: still down, no second event.
	e.clock.Set(t1.Add(time.Hour + 5*time.Minute))
	e.evaluate()
	wantSummary(t, "after a second miss", e.events(), "monitorMissed monitor backup")
	occ, err := e.store.MonitorOccurrences(e.ctx, m.ID, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(occ) != 2 || occ[0].MetAt != nil || occ[1].MetAt != nil || !occ[1].ExpectedAt.Equal(t1) {
		t.Errorf("occurrences %+v", occ)
	}
	// A success ping recovers it.
	e.clock.Add(time.Minute)
	e.ping(m, monitordef.PingSuccess, "")
	if got := e.status("backup"); got != models.MonitorUp {
		t.Errorf("status %s after a success", got)
	}
	wantSummary(t, "after the recovery", e.events(), "monitorMissed monitor backup", "monitorRecovered monitor backup")
	// The events link to nothing without a base URL, and name the
	// occurrence missed.
	for _, ev := range e.hook.events() {
		if ev.Event.Type == "monitorMissed" && (ev.Event.MonitorInfo == nil || ev.Event.MonitorInfo.ExpectedTime == nil ||
			!ev.Event.MonitorInfo.ExpectedTime.Equal(t1)) {
			t.Errorf("monitorMissed event %+v", ev.Event)
		}
	}
}

func TestMonitorPingWithinGraceMeetsTheOccurrence(t *testing.T) {
	e := newMonitorEnv(t)
	m := e.putMonitor("etl", `{"schedule":{"frequency":"hour","schedule":{"minutes":[0]}},"grace":"PT5M"}`)
	t1 := nextHour(e.clock.Now())
	// Early within the grace: meets T1.
	e.clock.Set(t1.Add(-4 * time.Minute))
	e.ping(m, monitordef.PingSuccess, "")
	e.clock.Set(t1.Add(5 * time.Minute))
	e.evaluate()
	if got := e.status("etl"); got != models.MonitorUp {
		t.Errorf("status %s after a met occurrence", got)
	}
	// T2: a ping too early (6 minutes before) does not meet it.
	t2 := t1.Add(time.Hour)
	e.clock.Set(t2.Add(-6 * time.Minute))
	e.ping(m, monitordef.PingSuccess, "")
	e.clock.Set(t2.Add(5 * time.Minute))
	e.evaluate()
	occ, err := e.store.MonitorOccurrences(e.ctx, m.ID, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(occ) != 2 || occ[1].MetAt == nil || !occ[1].MetAt.Equal(t1.Add(-4*time.Minute)) || occ[0].MetAt != nil {
		t.Fatalf("occurrences %+v", occ)
	}
	wantSummary(t, "events", e.events(), "monitorMissed monitor etl")
}

func TestMonitorSkipsExcludedDays(t *testing.T) {
	e := newMonitorEnv(t)
	day := e.clock.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour) // tomorrow, UTC
	if _, _, err := e.cat.PutCalendar(e.ctx, catalogtest.Actor, models.DefaultWorkspaceID, "holidays",
		[]byte(`{"entries":[{"date":"`+day.Format(time.DateOnly)+`"}]}`)); err != nil {
		t.Fatal(err)
	}
	m := e.putMonitor("daily", `{"schedule":{"frequency":"day","schedule":{"hours":[9],"minutes":[0]},
		"calendars":{"exclude":["holidays"]}},"grace":"PT10M"}`)
	// The recurrence core skips the excluded day.
	def, err := monitordef.Parse(m.Definition)
	if err != nil {
		t.Fatal(err)
	}
	cals, err := e.cat.WorkspaceCalendars(e.ctx, models.DefaultWorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := plan.MonitorRule(def, m.Anchor, cals)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range plan.MonitorExpected(rule, m.CheckedThrough, 5) {
		if at.UTC().Truncate(24 * time.Hour).Equal(day) {
			t.Errorf("expected on the excluded day: %v", at)
		}
	}
	// The engine, past 09:10 of the excluded day (and of today if it is
	// still to come, pinged), decides nothing missed.
	today := day.Add(-24*time.Hour + 9*time.Hour)
	if today.After(e.clock.Now()) {
		e.clock.Set(today)
		e.ping(m, monitordef.PingSuccess, "")
	}
	e.clock.Set(day.Add(9*time.Hour + 11*time.Minute))
	e.evaluate()
	if got := e.status("daily"); got == models.MonitorDown {
		t.Errorf("down after an excluded day")
	}
	wantSummary(t, "events", e.events())
}

func TestMonitorFailAndSlowRun(t *testing.T) {
	e := newMonitorEnv(t)
	m := e.putMonitor("batch", `{"schedule":{"frequency":"day"},"grace":"PT1H","deadline":{"maxDuration":"PT10M"}}`)
	// A fail ping raises monitorFailed at once, with its message.
	e.ping(m, monitordef.PingFail, "disk full")
	wantSummary(t, "after the fail", e.events(), "monitorFailed monitor batch")
	if msg := e.hook.events()[0].Event.MonitorInfo; msg == nil || msg.Message != "disk full" {
		t.Errorf("fail event %+v", e.hook.events()[0].Event)
	}
	// A start without a success within 10 minutes raises slowRun once.
	e.clock.Add(time.Minute)
	started := e.clock.Now()
	e.ping(m, monitordef.PingStart, "")
	if next := e.evaluate(); !next.Equal(started.Add(10 * time.Minute)) {
		t.Errorf("next look at %v, want the start's deadline %v", next, started.Add(10*time.Minute))
	}
	e.clock.Set(started.Add(10 * time.Minute))
	e.evaluate()
	e.evaluate()
	wantSummary(t, "after the slow run", e.events(), "monitorFailed monitor batch", "slowRun monitor batch")
	// A start that succeeds in time raises nothing.
	e.clock.Add(time.Minute)
	e.ping(m, monitordef.PingStart, "")
	e.clock.Add(5 * time.Minute)
	e.ping(m, monitordef.PingSuccess, "")
	e.clock.Add(20 * time.Minute)
	e.evaluate()
	wantSummary(t, "after a quick run", e.events(), "monitorFailed monitor batch", "slowRun monitor batch", "monitorRecovered monitor batch")
}

func TestMonitorEventsOnceAcrossEngines(t *testing.T) {
	e := newMonitorEnv(t)
	e.putMonitor("m", `{"schedule":{"frequency":"hour","schedule":{"minutes":[0]}},"grace":"PT1M","deadline":{"maxDuration":"PT5M"}}`)
	m, err := e.store.MonitorByName(e.ctx, models.DefaultWorkspaceID, "m")
	if err != nil {
		t.Fatal(err)
	}
	e.ping(m, monitordef.PingStart, "")
	var engines []*Engine
	for _, id := range []string{"a", "b", "c"} {
		eng, err := New(allowLoopback(Config{InstanceID: id}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger(),
			Calendars: catalog.New(e.store, e.clock.Now)})
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, eng)
	}
	// Past the end of grace of the next occurrence at least 10 minutes
	// after the start ping, so that its maxDuration has passed too,
	// whatever the minute the test starts at.
	e.clock.Set(nextHour(e.clock.Now().Add(10 * time.Minute)).Add(time.Minute))
	for range 3 {
		var wg sync.WaitGroup
		for _, eng := range engines {
			wg.Go(func() {
				if _, err := eng.evaluateMonitors(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	wantSummary(t, "three engines", e.events(), "monitorMissed monitor m", "slowRun monitor m")
}

// TestMonitorEventsHeldBackByMinInterval: a rule with minInterval holds
// back a monitor's events as it holds back a job's: the first at once,
// the rest of the interval in one digest when it ends, per monitor.
func TestMonitorEventsHeldBackByMinInterval(t *testing.T) {
	e := newEnv(t, nil)
	h := newHook(t, nil)
	addWebhook(t, e.store, models.DefaultWorkspaceID, "hook", h.URL, h.secret)
	addRule(t, e.store, models.DefaultWorkspaceID, "quiet", `{"channel":"hook","events":["monitorFailed"],"minInterval":"PT15M"}`)
	me := &monitorEnv{env: e, hook: h}
	a := me.putMonitor("a", `{"schedule":{"frequency":"day"},"grace":"PT1H"}`)
	b := me.putMonitor("b", `{"schedule":{"frequency":"day"},"grace":"PT1H"}`)
	start := e.clock.Now()
	for range 3 {
		me.ping(a, monitordef.PingFail, "disk full")
		e.clock.Add(time.Minute)
	}
	me.ping(b, monitordef.PingFail, "other")
	wantSummary(t, "inside the interval", me.events(), "monitorFailed monitor a", "monitorFailed monitor b")
	e.clock.Set(start.Add(15 * time.Minute))
	wantSummary(t, "when the interval ended", me.events(), "monitorFailed monitor a", "monitorFailed monitor a ×2", "monitorFailed monitor b")
}
