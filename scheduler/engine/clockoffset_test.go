package engine

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sked/models"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sked/scheduler/action"
)

// logBuffer collects an engine's log, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// count returns how many lines of the log hold s.
func (b *logBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

// timedExecutor succeeds at once and records the test's clock (the
// bubble's) at every start.
type timedExecutor struct {
	mu     sync.Mutex
	starts []time.Time
}

func (x *timedExecutor) Execute(context.Context, *action.Attempt) action.Result {
	x.mu.Lock()
	x.starts = append(x.starts, time.Now())
	x.mu.Unlock()
	return action.Result{Succeeded: true, StatusCode: 200, Message: "HTTP 200 OK"}
}

func (x *timedExecutor) started() []time.Time {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]time.Time(nil), x.starts...)
}

// setDB moves the database's clock of s to ahead of the test's clock and
// makes its heartbeats fail with err (nil: succeed).
func (s *memStore) setDB(ahead time.Duration, err error) {
	s.mu.Lock()
	s.dbAhead, s.beatErr = ahead, err
	s.mu.Unlock()
}

// startMem starts an engine on store under synctest with a fresh
// registry, logging into a buffer.
func startMem(t *testing.T, store *memStore, cfg Config, x action.Executor) (*Engine, *prometheus.Registry, *logBuffer) {
	t.Helper()
	reg := prometheus.NewRegistry()
	logs := &logBuffer{}
	cfg.SafetyPoll, cfg.RetentionInterval = noPoll, -1
	e, err := New(cfg, Deps{Store: store, Executor: x, Metrics: NewMetrics(reg),
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Ready(); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Errorf("Ready before Start: %v, want not started", err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	return e, reg, logs
}

// TestClockOffsetAboveTheMaximumStopsClaiming: an instance a minute ahead
// of the database claims nothing (attempts nor notifications), Ready names
// the offset, the gauge shows it and the log warns once; when its clock is
// set right it claims again at its next heartbeat.
func TestClockOffsetAboveTheMaximumStopsClaiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{dbAhead: -time.Minute, notifyAt: time.Now()}
		store.add(time.Now())
		x := &timedExecutor{}
		e, reg, logs := startMem(t, store, Config{}, x)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		store.mu.Lock()
		notifyClaims := store.notifyClaims
		store.mu.Unlock()
		time.Sleep(20 * time.Second) // six heartbeats in all
		synctest.Wait()
		store.mu.Lock()
		if store.notifyClaims != notifyClaims {
			t.Errorf("the outbox claimed notifications %d times with the clock a minute ahead", store.notifyClaims-notifyClaims)
		}
		notifyClaims = store.notifyClaims
		store.mu.Unlock()
		err := e.Ready()
		if want := "clock offset from the database is -60.0s, above --max-clock-offset 5s"; err == nil || err.Error() != want {
			t.Errorf("Ready: %v, want %q", err, want)
		}
		if got := gaugeValue(t, reg, "sked_clock_offset_seconds"); got != -60 {
			t.Errorf("sked_clock_offset_seconds %v, want -60", got)
		}
		if off, ok := e.ClockOffset(); !ok || off != -time.Minute {
			t.Errorf("ClockOffset %s %v, want -1m0s", off, ok)
		}
		if n := len(x.started()); n != 0 {
			t.Errorf("%d attempts started with the clock a minute ahead", n)
		}
		if n := logs.count("clock offset from the database above 500ms"); n != 1 {
			t.Errorf("the offset warning was logged %d times over six beats, want once", n)
		}
		if n := logs.count("not starting attempts"); n != 1 {
			t.Errorf("\"not starting attempts\" logged %d times, want once", n)
		}

		// The clock is set right: the next beat measures 0 and the engine
		// claims the attempt that waited.
		store.setDB(0, nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if err := e.Ready(); err != nil {
			t.Errorf("Ready with the clock set right: %v", err)
		}
		if got := gaugeValue(t, reg, "sked_clock_offset_seconds"); got != 0 {
			t.Errorf("sked_clock_offset_seconds %v, want 0", got)
		}
		if n := len(x.started()); n != 1 {
			t.Errorf("%d attempts started once the clock was set right, want 1", n)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		store.mu.Lock()
		if store.notifyClaims == notifyClaims {
			t.Error("the outbox claims no notification once the clock was set right")
		}
		store.mu.Unlock()
		if logs.count("back under 500ms") != 1 || logs.count("starting attempts again") != 1 {
			t.Errorf("log %q: want the offset back under and claiming again, once each", logs.buf.String())
		}
	})
}

// TestMaxClockOffsetNegativeTurnsTheCheckOff: with a negative
// MaxClockOffset an instance a minute behind still claims (at its own
// clock, a minute late by the database's), and Ready is nil.
func TestMaxClockOffsetNegativeTurnsTheCheckOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{dbAhead: time.Minute}
		t0 := time.Now()
		store.add(t0.Add(10 * time.Second))
		x := &timedExecutor{}
		e, reg, _ := startMem(t, store, Config{MaxClockOffset: -1}, x)
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if err := e.Ready(); err != nil {
			t.Errorf("Ready with the check off: %v", err)
		}
		if got := gaugeValue(t, reg, "sked_clock_offset_seconds"); got != 60 {
			t.Errorf("sked_clock_offset_seconds %v, want 60", got)
		}
		if got := x.started(); len(got) != 1 || !got[0].Equal(t0.Add(10*time.Second)) {
			t.Errorf("attempts started at %v, want one at its time by the instance's clock (%s)", got, t0.Add(10*time.Second))
		}
	})
}

// TestDueTimesUseTheEarlierClock: an instance ahead of the database by
// 2 s starts an attempt due at T when the database's clock reads T (2 s
// later by its own), without claiming again and again meanwhile; one
// behind by 2 s starts it at T by its own clock.
func TestDueTimesUseTheEarlierClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dbAhead time.Duration
		startAt time.Duration // after T, by the instance's own clock
	}{
		{"ahead", -2 * time.Second, 2 * time.Second},
		{"behind", 2 * time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &memStore{dbAhead: tc.dbAhead}
				due := time.Now().Add(10 * time.Second)
				store.add(due)
				x := &timedExecutor{}
				e, _, _ := startMem(t, store, Config{}, x)
				time.Sleep(time.Minute)
				synctest.Wait()
				if err := e.Ready(); err != nil {
					t.Errorf("Ready: %v", err)
				}
				got := x.started()
				if len(got) != 1 || !got[0].Equal(due.Add(tc.startAt)) {
					t.Fatalf("started at %v, want once at %s", got, due.Add(tc.startAt))
				}
				store.mu.Lock()
				defer store.mu.Unlock()
				if len(store.claims) > 4 {
					t.Errorf("%d claims for one attempt: the loop spun while the database's clock caught up", len(store.claims))
				}
				if !store.started[0].start.Equal(due) {
					t.Errorf("claimed at %s by the engine's due clock, want %s", store.started[0].start, due)
				}
			})
		})
	}
}

// TestHeartbeatNotRenewedStopsClaiming: once its heartbeat has failed for
// DeadAfter less one HeartbeatInterval, the instance starts nothing (the
// others may soon take its work over) and Ready says why; it starts again
// once a beat succeeds.
func TestHeartbeatNotRenewedStopsClaiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		t0 := time.Now()
		store.add(t0.Add(30 * time.Second))
		x := &timedExecutor{}
		e, _, logs := startMem(t, store, Config{}, x)
		synctest.Wait()
		if err := e.Ready(); err != nil {
			t.Fatalf("Ready after the first beat: %v", err)
		}
		store.setDB(0, errors.New("database unreachable"))
		time.Sleep(32 * time.Second)
		synctest.Wait()
		if err := e.Ready(); err == nil || !strings.Contains(err.Error(), "heartbeat not renewed for") {
			t.Errorf("Ready after 32 s without a heartbeat: %v", err)
		}
		if n := len(x.started()); n != 0 {
			t.Errorf("%d attempts started without a heartbeat for 30 s", n)
		}
		if n := logs.count("not starting attempts"); n != 1 {
			t.Errorf("\"not starting attempts\" logged %d times, want once", n)
		}
		store.setDB(0, nil)
		time.Sleep(5 * time.Second) // the next beat, at t0+35s
		synctest.Wait()
		if err := e.Ready(); err != nil {
			t.Errorf("Ready once the heartbeat is renewed: %v", err)
		}
		if got := x.started(); len(got) != 1 || !got[0].Equal(t0.Add(35*time.Second)) {
			t.Errorf("started at %v, want once at the renewed beat (%s)", got, t0.Add(35*time.Second))
		}
	})
}

// TestHeartbeatAfterAnOutageRecoversNoOne: the beats of an instance whose
// own heartbeat failed (a database outage) leave the others' attempts
// alone for DeadAfter once renewed, since the others' heartbeats are stale
// by the same outage; the beats before the outage and those DeadAfter
// after it recover dead instances.
func TestHeartbeatAfterAnOutageRecoversNoOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		_, _, _ = startMem(t, store, Config{}, &timedExecutor{})
		synctest.Wait()
		store.setDB(0, errors.New("database unreachable"))
		time.Sleep(30 * time.Second) // the outage, from t0 to t0+30s
		synctest.Wait()
		store.setDB(0, nil)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		store.mu.Lock()
		beats := append([]models.Heartbeat(nil), store.beats...)
		store.mu.Unlock()
		// t0: recovers; t0+5s … t0+30s: fail (recovery not asked for
		// after the first failure); t0+35s … t0+50s: renewed, quiet for
		// DeadAfter (20 s) after the first renewed beat; t0+55s on:
		// recover again.
		var skips []bool
		for _, b := range beats {
			skips = append(skips, b.SkipRecovery)
		}
		want := []bool{false, false, true, true, true, true, true, true, true, true, true, false, false}
		if !slices.Equal(skips, want) {
			t.Errorf("SkipRecovery of the beats %v, want %v", skips, want)
		}
	})
}
