package engine

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sked/models"
	"sked/models/notifydef"
)

// deadlineEnv is an env whose target answers with handle, with a signed
// webhook that receives the deadline events of the default workspace.
type deadlineEnv struct {
	*env
	hook *hook
}

func newDeadlineEnv(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *deadlineEnv {
	t.Helper()
	e := newEnv(t, handle)
	h := newHook(t, nil)
	addWebhook(t, e.store, models.DefaultWorkspaceID, "hook", h.URL, h.secret)
	addRule(t, e.store, models.DefaultWorkspaceID, "deadlines", `{"channel":"hook","events":["deadlineMissed","slowRun"]}`)
	return &deadlineEnv{env: e, hook: h}
}

// hourly is an hourly job at minute 0, from the next whole hour on,
// calling the target at path, with the action's extra fields and the
// job's deadline.
func (e *deadlineEnv) hourly(name, path, extra, deadline string) int64 {
	e.t.Helper()
	return e.put(name, `{"startTime":"`+rfc(nextHour(e.clock.Now()))+`","action":`+e.action(path, extra)+
		`,"recurrence":{"frequency":"hour","schedule":{"minutes":[0]}},"deadline":`+deadline+`}`)
}

// path is the job's path in events.
func (e *deadlineEnv) path(job string) string {
	return e.coll.ResourceGroup + "/" + e.coll.Name + "/" + job
}

// evaluate runs one round of eng's deadline watch and returns when it
// wants the next.
func evaluate(t *testing.T, eng *Engine) time.Time {
	t.Helper()
	next, err := eng.evaluateDeadlines(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// events sends what is due and returns the hook's events, sorted.
func (e *deadlineEnv) events() []string {
	e.t.Helper()
	e.sendAll()
	return e.hook.summary()
}

// failing answers 500 to the paths under /fail, and 200 to the others.
func failing(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/fail") {
		http.Error(w, "broken", http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte("ok"))
}

func TestDeadlineMissedAtExactlySucceedWithin(t *testing.T) {
	e := newDeadlineEnv(t, failing)
	// Every attempt fails (one retry), then the error action runs and
	// succeeds: the occurrence did not succeed.
	id := e.hourly("nightly", "/fail", `"retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1},`+
		`"errorAction":{"type":"Http","request":{"uri":"`+e.target.URL+`/error","method":"POST"}}`, `{"succeedWithin":"PT10M"}`)
	t1 := nextHour(e.clock.Now())
	e.clock.Set(t1)
	e.drain()
	e.clock.Add(15 * time.Second)
	e.drain()
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1", "ErrorAction Completed retry=0 repeat=1")
	// Before the deadline nothing is raised; the engine's timer is set to
	// the deadline exactly.
	e.clock.Set(t1.Add(10*time.Minute - time.Second))
	if next := evaluate(t, e.engine); !next.Equal(t1.Add(10 * time.Minute)) {
		t.Errorf("next look at %v, want the deadline %v", next, t1.Add(10*time.Minute))
	}
	wantSummary(t, "before the deadline", e.events())
	// At the deadline: deadlineMissed, once.
	e.clock.Set(t1.Add(10 * time.Minute))
	evaluate(t, e.engine)
	evaluate(t, e.engine)
	wantSummary(t, "at the deadline", e.events(), "deadlineMissed "+e.path("nightly"))
	ev := e.hook.events()[0].Event
	if ev.Occurrence == nil || !ev.Occurrence.ExpectedTime.Equal(t1) || ev.Attempt == nil || ev.Attempt.Action != "ErrorAction" ||
		!ev.Time.Equal(t1.Add(10*time.Minute)) {
		t.Errorf("event %+v (occurrence %+v, attempt %+v)", ev, ev.Occurrence, ev.Attempt)
	}
	evs, err := e.store.JobDeadlineEvents(e.ctx, id, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Type != notifydef.DeadlineMissed || !evs[0].ExpectedTime.Equal(t1) ||
		!evs[0].DeadlineAt.Equal(t1.Add(10*time.Minute)) {
		t.Errorf("job's deadline events %+v", evs)
	}
}

func TestDeadlineMetBySuccessAfterRetries(t *testing.T) {
	var calls atomic.Int32
	e := newDeadlineEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	id := e.hourly("etl", "/etl", `"retryPolicy":{"retryType":"fixed","retryInterval":"PT1M","retryCount":3}`, `{"succeedWithin":"PT5M"}`)
	t1 := nextHour(e.clock.Now())
	e.clock.Set(t1)
	e.drain()
	for range 2 {
		e.clock.Add(time.Minute)
		e.drain()
	}
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1", "MainAction Completed retry=2 repeat=1")
	e.clock.Set(t1.Add(time.Hour))
	evaluate(t, e.engine)
	wantSummary(t, "after a success within the deadline", e.events())
	evs, err := e.store.JobDeadlineEvents(e.ctx, id, 10)
	if err != nil || len(evs) != 0 {
		t.Errorf("job's deadline events %+v, %v", evs, err)
	}
}

func TestDeadlineOfAJobDisabledBeforeItExpectsNothing(t *testing.T) {
	e := newDeadlineEnv(t, failing)
	id := e.hourly("paused", "/fail", `"retryPolicy":{"retryType":"none"}`, `{"succeedWithin":"PT2M"}`)
	t1 := nextHour(e.clock.Now())
	e.clock.Set(t1)
	e.drain()
	if err := e.setEnabled(id, false); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(t1.Add(2 * time.Minute))
	evaluate(t, e.engine)
	wantSummary(t, "a disabled job", e.events())
	// Nothing is left to decide.
	if _, ok, err := e.store.NextDeadline(e.ctx); ok || err != nil {
		t.Errorf("a watch is still open (%v)", err)
	}
}

func TestSlowRunOnceForALongAttempt(t *testing.T) {
	release := make(chan struct{})
	e := newDeadlineEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		_, _ = w.Write([]byte("ok"))
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the target's Close, which waits for the request
	e.target.seen = make(chan received, 10)
	slow := e.hourly("slow", "/slow", `"retryPolicy":{"retryType":"none"}`, `{"maxDuration":"PT30S"}`)
	fast := e.hourly("fast", "/fast", `"retryPolicy":{"retryType":"none"}`, `{"maxDuration":"PT30S"}`)
	t1 := nextHour(e.clock.Now())
	e.clock.Set(t1)
	done := make(chan error, 1)
	go func() { _, err := e.engine.runDue(e.ctx); done <- err }()
	for range 2 {
		<-e.target.seen
	}
	// Both attempts are watched until the slow moment; the fast one ends
	// first.
	if next := evaluate(t, e.engine); !next.Equal(t1.Add(30 * time.Second)) {
		t.Errorf("next look at %v, want %v", next, t1.Add(30*time.Second))
	}
	e.clock.Set(t1.Add(30 * time.Second))
	for range 3 {
		evaluate(t, e.engine)
	}
	wantSummary(t, "while the slow attempt runs", e.events(), "slowRun "+e.path("slow"))
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ev := e.hook.events()[0].Event
	if ev.Attempt == nil || ev.Attempt.StartTime == nil || !ev.Attempt.StartTime.Equal(t1) || ev.Attempt.Status != "Running" {
		t.Errorf("slowRun event %+v (attempt %+v)", ev, ev.Attempt)
	}
	e.clock.Add(time.Hour)
	evaluate(t, e.engine)
	wantSummary(t, "after both ended", e.events(), "slowRun "+e.path("slow"))
	for id, want := range map[int64]int{slow: 1, fast: 0} {
		evs, err := e.store.JobDeadlineEvents(e.ctx, id, 10)
		if err != nil || len(evs) != want {
			t.Errorf("job %d: deadline events %+v, %v; want %d", id, evs, err, want)
		}
	}
}

func TestDeadlineEventsOnceAcrossEngines(t *testing.T) {
	release := make(chan struct{})
	e := newDeadlineEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		http.Error(w, "broken", http.StatusInternalServerError)
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	e.target.seen = make(chan received, 10)
	id := e.hourly("both", "/slow", `"retryPolicy":{"retryType":"none"}`, `{"succeedWithin":"PT1M","maxDuration":"PT30S"}`)
	var engines []*Engine
	for _, id := range []string{"a", "b", "c"} {
		eng, err := New(allowLoopback(Config{InstanceID: id}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, eng)
	}
	t1 := nextHour(e.clock.Now())
	e.clock.Set(t1)
	done := make(chan error, 1)
	go func() { _, err := engines[0].runDue(e.ctx); done <- err }()
	a := <-e.target.seen
	// Engine a runs the attempt; b and c watch it too, as after a lease
	// that moved (the attempt's row is the one the claim wrote).
	atts := e.attempts(id)
	if len(atts) != 1 {
		t.Fatalf("open attempts %+v (request %+v)", atts, a)
	}
	claimed := &models.ClaimedAttempt{ID: atts[0].ID, JobID: atts[0].JobID, Action: models.MainAction, Attempt: 1,
		ExpectedTime: t1, StartedAt: t1, Definition: e.job(atts[0].JobID).Definition}
	for _, eng := range engines[1:] {
		cj, err := eng.cache.get(claimed.JobID, claimed.Definition, nil, nil, jobCalendars{})
		if err != nil {
			t.Fatal(err)
		}
		eng.watchSlow(claimed, cj)
	}
	round := func() {
		var wg sync.WaitGroup
		for _, eng := range engines {
			wg.Go(func() {
				if _, err := eng.evaluateDeadlines(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	e.clock.Set(t1.Add(30 * time.Second))
	round()
	round()
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	e.clock.Set(t1.Add(time.Minute))
	round()
	round()
	wantSummary(t, "three engines", e.events(), "deadlineMissed "+e.path("both"), "slowRun "+e.path("both"))
}

func TestDeadlineMissedBySkippedOccurrencesOnceAndPruned(t *testing.T) {
	e := newDeadlineEnv(t, nil)
	id := e.hourly("hourly", "/ok", `"retryPolicy":{"retryType":"none"}`, `{"succeedWithin":"PT10M"}`)
	t1 := nextHour(e.clock.Now())
	// Every instance was down from before t1 until t1+2h30: three
	// occurrences are skipped (misfirePolicy skip), one event for the
	// newest, whose deadline passed, at once.
	e.clock.Set(t1.Add(2*time.Hour + 30*time.Minute))
	e.drain()
	wantLines(t, historyLines(e.history(id)), "MainAction Postponed retry=0 repeat=0")
	evaluate(t, e.engine)
	evaluate(t, e.engine)
	wantSummary(t, "after the gap", e.events(), "deadlineMissed "+e.path("hourly"))
	if ev := e.hook.events()[0].Event; ev.Occurrence == nil || !ev.Occurrence.ExpectedTime.Equal(t1.Add(2*time.Hour)) || ev.Attempt == nil ||
		ev.Attempt.Status != "Postponed" {
		t.Errorf("event %+v (occurrence %+v, attempt %+v)", ev, ev.Occurrence, ev.Attempt)
	}
	// The next occurrence runs and succeeds: nothing more.
	e.clock.Set(t1.Add(3 * time.Hour))
	e.drain()
	e.clock.Set(t1.Add(4 * time.Hour))
	evaluate(t, e.engine)
	wantSummary(t, "after a success", e.events(), "deadlineMissed "+e.path("hourly"))
	// Retention deletes the decided watches with the history.
	if _, err := e.store.Prune(e.ctx, t1.Add(48*time.Hour), models.Retention{HistoryMaxAge: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if evs, err := e.store.JobDeadlineEvents(e.ctx, id, 10); err != nil || len(evs) != 0 {
		t.Errorf("after retention: %+v, %v", evs, err)
	}
}

// TestDeadlineWatchSleepsUntilTheNextDeadline: the engine decides each
// deadline at its moment exactly, by a timer to the next one, and does not
// poll in between (the safety poll is an hour).
func TestDeadlineWatchSleepsUntilTheNextDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		t0 := time.Now()
		store.deadlines = []time.Time{t0.Add(2 * time.Hour), t0.Add(10 * time.Minute)}
		e, err := New(Config{SafetyPoll: time.Hour, RetentionInterval: -1}, Deps{Store: store,
			Notifier: &memNotifier{c: make(chan struct{}, 1)}, Executor: okExecutor{}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Minute)
		// A claim records a deadline sooner than the next one known: the
		// watch wakes and sleeps until it instead.
		store.mu.Lock()
		store.deadlines = append(store.deadlines, t0.Add(45*time.Minute))
		store.mu.Unlock()
		e.deadlines.note(t0.Add(45 * time.Minute))
		time.Sleep(3 * time.Hour)
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		want := []time.Time{t0.Add(10 * time.Minute), t0.Add(45 * time.Minute), t0.Add(2 * time.Hour)}
		if len(store.decidedAt) != len(want) {
			t.Fatalf("decided at %v, want %v", store.decidedAt, want)
		}
		for i, at := range store.decidedAt {
			if !at.Equal(want[i]) {
				t.Errorf("deadline %d decided at +%v, want +%v", i, at.Sub(t0), want[i].Sub(t0))
			}
		}
		// A look at start, at each deadline, at the wake-up, and the
		// hourly safety polls: a handful, not a poll.
		if store.decideCalls > 12 {
			t.Errorf("%d decisions in 3h30m: the watch polls", store.decideCalls)
		}
	})
}
