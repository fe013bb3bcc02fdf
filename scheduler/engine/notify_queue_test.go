package engine

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// A sender that claimed more notifications than it could send in time
// (its channel is slow) puts the ones still waiting back without counting
// a try: each is then delivered once, on its first try.
func TestNotifyClaimedButWaitingTooLongArePutBack(t *testing.T) {
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	coll := newCollection(t, store)
	tg := newTarget(t, failingPaths)
	h := newHook(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1200 * time.Millisecond) // slower than the queue wait (1 s)
		w.WriteHeader(http.StatusNoContent)
	})
	h.seen = make(chan hookEvent, 10)
	ws := models.DefaultWorkspaceID
	addWebhook(t, store, ws, "hook", h.URL, h.secret)
	addRule(t, store, ws, "faults", `{"channel":"hook","events":["occurrenceFaulted"]}`)
	// One sender, queue wait LeaseMargin/2 = 1 s: of the three
	// notifications claimed together, the second and third wait longer.
	e, tries := startNotifying(t, store, Config{NotifyWorkers: 1, LeaseMargin: 2 * time.Second})
	for _, name := range []string{"a", "b", "c"} {
		putJob(t, store, coll, name, `{"action":`+httpAction(tg.URL+"/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	}
	seen := map[string]bool{}
	for range 3 {
		select {
		case s := <-tries:
			if !s.Result.Delivered || s.Try != 1 {
				t.Errorf("try %+v: want delivered on its first try", s)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the three notifications were not all sent within 30 s")
		}
		ev := <-h.seen
		if seen[ev.ID] {
			t.Errorf("%s delivered twice", ev.ID)
		}
		seen[ev.ID] = true
	}
	if err := e.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, n := range deliveries(t, store) {
		if n.Status != models.NotificationDelivered || n.Attempts != 1 {
			t.Errorf("notification %d: %s after %d tries; want delivered after 1", n.ID, n.Status, n.Attempts)
		}
	}
}

// While the engine's claim loop has due attempts left, the outbox waits
// busyClaimGap before claiming (less when the loop turns idle meanwhile)
// and leaves the notifications of the last notifyHold; when the loop is
// idle it neither waits nor leaves any.
func TestOutboxYieldsToABusyClaimLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &outbox{clock: SystemClock{}, burst: newBurstSignal(), stop: make(chan struct{})}
		waited := func() time.Duration {
			start := time.Now()
			if !o.yield() {
				t.Fatal("yield reported a stop")
			}
			return time.Since(start)
		}
		now := time.Now()
		if d := waited(); d != 0 || !o.dueBy(now).Equal(now) || !o.nextAt(now).Equal(now) {
			t.Errorf("idle loop: waited %s, due by %s, next at %s", d, o.dueBy(now), o.nextAt(now))
		}
		o.engineClaimed(32, 32) // filled its free workers: more may be due
		if got := o.dueBy(now); !got.Equal(now.Add(-notifyHold)) {
			t.Errorf("busy loop: due by %s, want %s", got, now.Add(-notifyHold))
		}
		if got := o.nextAt(now); !got.Equal(now.Add(notifyHold)) {
			t.Errorf("busy loop: next at %s, want %s", got, now.Add(notifyHold))
		}
		if d := waited(); d != busyClaimGap {
			t.Errorf("busy loop: waited %s, want %s", d, busyClaimGap)
		}
		go func() {
			time.Sleep(50 * time.Millisecond)
			o.engineClaimed(32, 5) // took everything due
		}()
		if d := waited(); d != 50*time.Millisecond {
			t.Errorf("loop idle after 50 ms: waited %s", d)
		}
		if d := waited(); d != 0 {
			t.Errorf("idle again: waited %s", d)
		}
		o.engineClaimed(0, 0) // no free worker: busy
		close(o.stop)
		if o.yield() {
			t.Error("yield after stop reported no stop")
		}
		var off *outbox
		off.engineClaimed(1, 1) // sending off: nothing to tell
	})
}

// The senders that miss the same channel at the same time read it once.
func TestOutboxCacheReadsOnceForConcurrentMisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c ttlCache[string]
		var mu sync.Mutex
		reads := 0
		load := func(ctx context.Context, id int64) (string, error) {
			mu.Lock()
			reads++
			mu.Unlock()
			time.Sleep(10 * time.Millisecond) // a query
			return fmt.Sprint("channel ", id), nil
		}
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				if v, err := c.get(t.Context(), 7, load); err != nil || v != "channel 7" {
					t.Errorf("get: %q %v", v, err)
				}
			})
		}
		wg.Wait()
		if reads != 1 {
			t.Errorf("32 concurrent misses read the channel %d times, want once", reads)
		}
		time.Sleep(outboxTTL)
		if _, err := c.get(t.Context(), 7, load); err != nil || reads != 2 {
			t.Errorf("after the TTL: %d reads (%v), want 2", reads, err)
		}
	})
}
