package engine

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
)

// failExecutor fails every attempt after d.
type failExecutor struct{ d time.Duration }

func (x failExecutor) Execute(ctx context.Context, _ *action.Attempt) action.Result {
	select {
	case <-time.After(x.d):
		return action.Result{StatusCode: 500, Message: "HTTP 500 Internal Server Error"}
	case <-ctx.Done():
		return action.Result{Message: "interrupted"}
	}
}

func TestRetryDelay(t *testing.T) {
	exp := jobdef.RetryPolicy{Type: jobdef.RetryExponential, Interval: 30 * time.Second, Count: 20, MaxInterval: time.Hour}
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute,
		32 * time.Minute, time.Hour, time.Hour}
	for i, w := range want {
		if d := retryDelay(exp, i+1); d != w {
			t.Errorf("exponential retry after attempt %d: %s, want %s", i+1, d, w)
		}
	}
	// 18 months doubled 19 times does not overflow.
	big := jobdef.RetryPolicy{Type: jobdef.RetryExponential, Interval: jobdef.MaxRetryInterval, Count: 20, MaxInterval: jobdef.MaxRetryInterval}
	if d := retryDelay(big, 20); d != jobdef.MaxRetryInterval {
		t.Errorf("18 months: %s", d)
	}
	fixed := jobdef.RetryPolicy{Type: jobdef.RetryFixed, Interval: 45 * time.Second, Count: 3}
	for n := 1; n <= 3; n++ {
		if d := retryDelay(fixed, n); d != 45*time.Second {
			t.Errorf("fixed retry after attempt %d: %s", n, d)
		}
	}
}

// TestExponentialRetriesAndErrorActionStartOnTimeWithoutPolling runs a job
// whose every attempt fails, with an exponential retry policy and an error
// action, on an engine whose safety poll is an hour and that gets no
// notification: only the timer it arms when it stores each retry wakes it.
// Each retry starts exactly its delay after the previous attempt ended
// (30 s, 60 s, 120 s, 240 s, then the 5-minute cap), the error action the
// moment the last attempt ended.
func TestExponentialRetriesAndErrorActionStartOnTimeWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{def: json.RawMessage(`{"action":{"type":"http","request":{"uri":"http://sink","method":"GET"},
			"retryPolicy":{"retryType":"exponential","retryInterval":"PT30S","retryCount":6,"maxRetryInterval":"PT5M"},
			"errorAction":{"type":"http","request":{"uri":"http://sink/e","method":"GET"},"retryPolicy":{"retryType":"none"}}}}`)}
		store.add(time.Now().Add(10 * time.Second))
		e, err := New(Config{SafetyPoll: time.Hour, RetentionInterval: -1}, Deps{Store: store,
			Executor: failExecutor{d: 2 * time.Second}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Minute)
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute, 0}
		if len(store.started) != 8 || len(store.ended) != 8 {
			t.Fatalf("started %d attempts, ended %d; want 7 of the main action and the error action", len(store.started), len(store.ended))
		}
		for i, w := range want {
			a := store.started[i+1]
			if got := a.start.Sub(store.ended[i]); got != w {
				t.Errorf("%s attempt %d started %s after the previous attempt ended, want %s", a.action, a.attempt, got, w)
			}
			if a.start != a.at {
				t.Errorf("%s attempt %d started %s late", a.action, a.attempt, a.start.Sub(a.at))
			}
		}
		if last := store.started[7]; last.action != string(models.ErrorAction) || last.attempt != 1 {
			t.Errorf("last attempt %+v, want the error action", last)
		}
		// Claims: the first at Start, one per due time (no polling).
		if n := len(store.claims); n > 10 {
			t.Errorf("%d claims for 8 attempts in 50 minutes", n)
		}
	})
}

// TestNotifiedDueTimeArmsTheTimerWithoutQuerying: a notification carrying
// the due time of an attempt another engine stored makes a sleeping engine
// claim at that time, not at once (no re-query) and not at the safety
// poll.
func TestNotifiedDueTimeArmsTheTimerWithoutQuerying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		notifier := &memNotifier{c: make(chan struct{}, 1), due: make(chan time.Time, 8)}
		e, err := New(Config{SafetyPoll: time.Hour, RetentionInterval: -1}, Deps{Store: store, Notifier: notifier,
			Executor: okExecutor{d: time.Second}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		e.Start()
		synctest.Wait()
		// Another engine stores a retry due in 40 s, and one due in 20 s
		// arrives next: the timer moves to the earlier one.
		store.add(t0.Add(40 * time.Second))
		notifier.due <- t0.Add(40 * time.Second)
		time.Sleep(5 * time.Second)
		store.add(t0.Add(20 * time.Second))
		notifier.due <- t0.Add(20 * time.Second)
		time.Sleep(5 * time.Minute)
		e.Stop(context.Background())
		store.mu.Lock()
		defer store.mu.Unlock()
		if len(store.starts) != 2 || store.starts[0] != 0 || store.starts[1] != 0 {
			t.Errorf("lateness %v, want two attempts on time", store.starts)
		}
		var at []time.Duration
		for _, c := range store.claims {
			at = append(at, c.Sub(t0))
		}
		if len(at) != 3 || at[0] != 0 || at[1] != 20*time.Second || at[2] != 40*time.Second {
			t.Errorf("claims at %v, want at 0, 20 s and 40 s only", at)
		}
	})
}
