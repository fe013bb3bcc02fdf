package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// skewClock is the system clock moved by skew: the clock of an instance
// whose clock is wrong (the database's, on this machine, is right).
type skewClock struct{ skew time.Duration }

func (c skewClock) Now() time.Time                 { return time.Now().Add(c.skew) }
func (c skewClock) NewTimer(d time.Duration) Timer { return SystemClock{}.NewTimer(d) }

// waitReady waits until e.Ready() is nil (ready) or not nil, and returns
// its last answer.
func waitReady(t *testing.T, e *live, ready bool, within time.Duration) error {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := e.Ready()
		if (err == nil) == ready {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("engine %s: Ready() = %v after %s, want ready %v", e.InstanceID(), err, within, ready)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkOffset checks that e measured its offset from the database as
// want (database − instance), within the measurement's error.
func checkOffset(t *testing.T, e *live, want time.Duration) {
	t.Helper()
	got, ok := e.ClockOffset()
	if !ok || (got-want).Abs() > 500*time.Millisecond {
		t.Errorf("engine %s measured its clock offset %s (%v), want %s", e.InstanceID(), got, ok, want)
	}
}

// instanceOf returns the instance that ran history entry h of job id.
func instanceOf(t *testing.T, store *models.Store, id int64, h models.HistoryEntry) string {
	t.Helper()
	d, err := store.ExecutionDetail(context.Background(), id, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d.Instance
}

// TestSkewedEnginesRunEachOccurrenceOnceNeverEarly: three engines whose
// clocks are 2 s behind, right and 2 s ahead of the database's (the real
// clock here) run one-time jobs due over eight seconds: every occurrence
// reaches the target exactly once, and never before its time by the real
// clock.
func TestSkewedEnginesRunEachOccurrenceOnceNeverEarly(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	var mu sync.Mutex
	counts := map[string]int{}
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
	})
	outside := openStore(t, dsn)
	coll := newCollection(t, outside)
	skews := []time.Duration{-2 * time.Second, 0, 2 * time.Second}
	var engines []*live
	for i, skew := range skews {
		engines = append(engines, startLiveWith(t, openStore(t, dsn), Config{InstanceID: fmt.Sprintf("skew%d", i)},
			Deps{Clock: skewClock{skew}, Notifier: models.NewListener(dsn, quietLogger())}))
	}
	for i, e := range engines {
		waitReady(t, e, true, 10*time.Second)
		checkOffset(t, e, -skews[i])
	}

	const n = 24
	t0 := time.Now().Add(3 * time.Second).Truncate(time.Second)
	ids := make([]int64, n)
	starts := make([]time.Time, n)
	for i := range n {
		starts[i] = t0.Add(time.Duration(i%8) * time.Second)
		ids[i] = putJob(t, outside, coll, fmt.Sprintf("j%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
			rfc(starts[i]), httpAction(fmt.Sprintf("%s/j%d", tg.URL, i), "")))
	}
	ran := map[string]int{}
	for i, id := range ids {
		h := waitHistory(t, outside, id, 1, 30*time.Second)
		if !h[0].ExpectedExecutionTime.Equal(starts[i]) || h[0].Status != models.StatusCompleted {
			t.Errorf("job %d: %s expected at %s, want Completed at %s", i, h[0].Status, h[0].ExpectedExecutionTime, starts[i])
		}
		ran[instanceOf(t, outside, id, h[0])]++
	}
	t.Logf("occurrences run by instance: %v", ran)
	// Stop the engines: anything started twice has arrived by then.
	for _, e := range engines {
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	byPath := map[string][]received{}
	for _, r := range tg.requests() {
		byPath[r.Path] = append(byPath[r.Path], r)
	}
	var early []string
	for i := range n {
		got := byPath[fmt.Sprintf("/j%d", i)]
		if len(got) != 1 {
			t.Errorf("job %d reached the target %d times, want once", i, len(got))
			continue
		}
		if got[0].At.Before(starts[i]) {
			early = append(early, fmt.Sprintf("job %d %s early", i, starts[i].Sub(got[0].At)))
		}
		if h := waitHistory(t, outside, ids[i], 1, time.Second); len(h) != 1 {
			t.Errorf("job %d has %d history entries, want 1", i, len(h))
		}
	}
	if len(early) > 0 {
		t.Errorf("occurrences started before their time by the real clock: %s", strings.Join(early, "; "))
	}
	mu.Lock()
	defer mu.Unlock()
	for key, c := range counts {
		if c != 1 {
			t.Errorf("idempotency key %s received %d times", key, c)
		}
	}
}

// TestEngineFarFromTheDatabaseClockStopsClaiming: an engine whose clock
// is a minute ahead (or behind) of the database's claims nothing: its
// Ready names the offset, its gauge shows it, and the engine whose clock
// is right runs every job, run now and scheduled alike.
func TestEngineFarFromTheDatabaseClockStopsClaiming(t *testing.T) {
	for _, skew := range []time.Duration{time.Minute, -time.Minute} {
		t.Run(fmt.Sprint(skew), func(t *testing.T) {
			dsn := testdb.DSN(t)
			tg := newTarget(t, nil)
			outside := openStore(t, dsn)
			coll := newCollection(t, outside)
			reg := prometheus.NewRegistry()
			far := startLiveWith(t, openStore(t, dsn), Config{InstanceID: "far"},
				Deps{Clock: skewClock{skew}, Metrics: NewMetrics(reg), Notifier: models.NewListener(dsn, quietLogger())})
			right := startLive(t, openStore(t, dsn), Config{InstanceID: "right"})
			waitReady(t, right, true, 10*time.Second)
			// The far engine is not ready before its first heartbeat
			// either ("no heartbeat written yet"): its reason is judged
			// once that heartbeat measured its offset.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if _, ok := far.ClockOffset(); ok || time.Now().After(deadline) {
					break
				}
			}
			err := waitReady(t, far, false, 10*time.Second)
			// "clock offset from the database is -60.0s, above
			// --max-clock-offset 5s", the offset as measured.
			var named float64
			if _, scanErr := fmt.Sscanf(err.Error(), "clock offset from the database is %fs, above --max-clock-offset 5s", &named); scanErr != nil ||
				!strings.HasSuffix(err.Error(), ", above --max-clock-offset 5s") ||
				(time.Duration(named*float64(time.Second))+skew).Abs() > 500*time.Millisecond {
				t.Errorf("Ready of the far engine: %q, want it to name an offset of about %+.1fs and --max-clock-offset 5s",
					err, (-skew).Seconds())
			}
			checkOffset(t, far, -skew)
			if got := gaugeValue(t, reg, "sked_clock_offset_seconds"); (time.Duration(got*float64(time.Second)) + skew).Abs() > 500*time.Millisecond {
				t.Errorf("sked_clock_offset_seconds %v, want about %v", got, (-skew).Seconds())
			}

			var ids []int64
			start := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
			for i := range 4 {
				ids = append(ids, putJob(t, outside, coll, fmt.Sprintf("at%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
					rfc(start), httpAction(tg.URL+"/at", ""))))
			}
			for i := range 4 {
				id := putJob(t, outside, coll, fmt.Sprintf("now%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
					rfc(start.Add(time.Hour)), httpAction(tg.URL+"/now", "")))
				if _, err := far.runNow(t, coll, id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			for _, id := range ids {
				h := waitHistory(t, outside, id, 1, 20*time.Second)
				if got := instanceOf(t, outside, id, h[0]); got != "right" || h[0].Status != models.StatusCompleted {
					t.Errorf("job %d: %s by %q, want Completed by the engine whose clock is right", id, h[0].Status, got)
				}
			}
			if err := far.Ready(); err == nil {
				t.Error("the far engine became ready")
			}
		})
	}
}

// TestSkewedInstancesAreNeitherDeclaredDeadNorDeclareOthersDead: three
// engines whose clocks are a minute behind, right and a minute ahead (the
// offset check off, so that each runs work) each hold an attempt for
// 10 s while they beat every 500 ms and find instances dead after 2 s,
// with leases of 16 s: judged by the database's clock, none is taken for
// dead and no lease is taken over; each attempt runs once and completes.
func TestSkewedInstancesAreNeitherDeclaredDeadNorDeclareOthersDead(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	tg.seen = make(chan received, 10)
	outside := openStore(t, dsn)
	coll := newCollection(t, outside)
	// Run now queues attempts due two minutes ago: due for every engine,
	// even the one whose clock is a minute behind.
	past := func() time.Time { return time.Now().Add(-2 * time.Minute) }
	cfg := func(id string) Config {
		return Config{InstanceID: id, MaxWorkers: 1, MaxClockOffset: -1, HeartbeatInterval: 500 * time.Millisecond,
			DeadAfter: 2 * time.Second, LeaseMargin: time.Second}
	}
	var engines []*live
	ids := map[string]int64{}
	for _, c := range []struct {
		id   string
		skew time.Duration
	}{{"behind", -time.Minute}, {"right", 0}, {"ahead", time.Minute}} {
		e := startLiveWith(t, openStore(t, dsn), cfg(c.id), Deps{Clock: skewClock{c.skew}, Notifier: models.NewListener(dsn, quietLogger())})
		engines = append(engines, e)
		waitReady(t, e, true, 10*time.Second)
		checkOffset(t, e, -c.skew)
		id := putJob(t, outside, coll, c.id, `{"startTime":"2099-01-01T00:00:00Z","action":`+
			httpAction(tg.URL+"/"+c.id, `"timeout":"PT15S","retryPolicy":{"retryType":"none"}`)+`}`)
		ids[c.id] = id
		// The engines started before are busy (one worker each): this one
		// takes it.
		cat := catalog.New(outside, past).WithRunner(e)
		if _, err := cat.RunNow(context.Background(), catalogtest.Actor, coll, jobByID(t, outside, id)); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-tg.seen:
			if r.Path != "/"+c.id {
				t.Fatalf("target got %s, want /%s", r.Path, c.id)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the attempt of %s did not start", c.id)
		}
		if owner := engineOf(t, outside, id, engines); owner != e {
			t.Fatalf("the attempt of %s is held by %s", c.id, owner.InstanceID())
		}
	}
	for name, id := range ids {
		h := waitHistory(t, outside, id, 1, 30*time.Second)
		if len(h) != 1 || h[0].Status != models.StatusCompleted {
			t.Errorf("%s: history %s; want one Completed entry (no interrupted one)", name, historyLines(h))
			continue
		}
		if got := instanceOf(t, outside, id, h[0]); got != name {
			t.Errorf("%s's attempt was recorded by %s", name, got)
		}
	}
	for _, e := range engines {
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	byPath := map[string]int{}
	for _, r := range tg.requests() {
		byPath[r.Path]++
	}
	for name := range ids {
		if byPath["/"+name] != 1 {
			t.Errorf("%s's attempt reached the target %d times, want once", name, byPath["/"+name])
		}
	}
}
