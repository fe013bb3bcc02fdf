package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// kill stops e as kill -9 would: its heartbeat, notifications, claim loop
// and workers stop at once; nothing is written, released or deleted (its
// running attempts stay leased to it, its heartbeat row stays). A later
// Stop returns at once.
func (e *Engine) kill() {
	e.crashed.Store(true)
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	e.bgCancel()
	close(e.stopClaiming)
	e.execCancel()
	e.writeCancel()
	<-e.loopDone
	e.inflight.Wait()
	close(e.results)
	e.writers.Wait()
	e.bg.Wait()
}

// TestKilledInstanceAttemptsAreRecoveredWithinSeconds: three engines with
// the default heartbeat (every 5 s, dead after 20 s). One is killed while
// it runs an attempt whose timeout is 10 minutes (a lease of 10m30s):
// another engine records that attempt Failed ("interrupted") within 30 s
// of the kill and runs its retry 15 s later. Meanwhile a live engine runs
// an attempt for 40 s and keeps it: it is recorded Completed, once.
func TestKilledInstanceAttemptsAreRecoveredWithinSeconds(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	outside := openStore(t, dsn)
	coll := newCollection(t, outside)
	ctx := context.Background()
	first := true
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			select {
			case <-time.After(40 * time.Second):
			case <-r.Context().Done():
			}
		case "/killed":
			if first {
				first = false
				<-r.Context().Done() // until the killed engine's request goes away
			}
		}
	})
	tg.seen = make(chan received, 100)

	// A slow attempt on engine A, which has one worker: while it runs, A
	// claims nothing else.
	a := startLive(t, openStore(t, dsn), Config{InstanceID: "A", MaxWorkers: 1, SafetyPoll: noPoll})
	slow := putJob(t, outside, coll, "slow", `{"action":`+httpAction(tg.URL+"/slow",
		`"timeout":"PT2M","retryPolicy":{"retryType":"none"}`)+`}`)
	waitPath(t, tg, "/slow", 10*time.Second)
	engines := []*live{a}
	for _, id := range []string{"B", "C"} {
		engines = append(engines, startLive(t, openStore(t, dsn), Config{InstanceID: id, SafetyPoll: noPoll}))
	}
	killed := putJob(t, outside, coll, "killed", `{"action":`+httpAction(tg.URL+"/killed",
		`"timeout":"PT10M","retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":1}`)+`}`)
	waitPath(t, tg, "/killed", 10*time.Second)
	victim := engineOf(t, outside, killed, engines)
	if victim == a {
		t.Fatal("A (one worker, busy) claimed a second attempt")
	}
	victim.kill()
	killedAt := time.Now()

	h := waitHistory(t, outside, killed, 1, 40*time.Second)
	recovered := h[0].EndTime.Sub(killedAt)
	t.Logf("the killed engine's attempt was recorded interrupted %s after the kill", recovered)
	if h[0].Status != models.StatusFailed || !strings.Contains(h[0].Message, "interrupted") || recovered > 30*time.Second {
		t.Errorf("killed engine's attempt: %s %q %s after the kill; want Failed, interrupted, within 30 s", h[0].Status, h[0].Message, recovered)
	}
	h = waitHistory(t, outside, killed, 2, 30*time.Second)
	wantLines(t, historyLines(h), "MainAction Failed retry=0 repeat=1", "MainAction Completed retry=1 repeat=1")
	if g := gap(h[0], h[1]); g < 14*time.Second || g > 16*time.Second {
		t.Errorf("the retry started %s after the interrupted attempt was recorded, want 15 s", g)
	}

	// The live engine's slow attempt was not taken from it.
	hs := waitHistory(t, outside, slow, 1, 40*time.Second)
	if len(hs) != 1 || hs[0].Status != models.StatusCompleted || hs[0].EndTime.Sub(hs[0].StartTime) < 39*time.Second {
		t.Errorf("slow attempt on a live engine: %+v; want one Completed entry of 40 s", hs)
	}
	var n int
	for _, r := range tg.requests() {
		if r.Path == "/slow" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the slow attempt was sent %d times", n)
	}

	// The killed engine's row stays (retention deletes it a day later); a
	// graceful stop deletes the engine's own.
	if err := engines[1].Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := engines[2].Stop(ctx); err != nil {
		t.Fatal(err)
	}
	inst, err := outside.EngineInstances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range inst {
		ids = append(ids, i.ID)
	}
	if got, want := strings.Join(ids, " "), fmt.Sprintf("A %s", victim.InstanceID()); got != want {
		t.Errorf("engine instances after stopping B and C and killing %s: %s, want %s", victim.InstanceID(), got, want)
	}
}
