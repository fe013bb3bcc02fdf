package engine

import (
	"context"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestClaimsAtOnceWhenListenIsBack: the database restarts while the
// engine's listener is away; a job made due meanwhile sends its
// notification to nobody. When LISTEN is back the engine claims
// everything due at once: the job runs without a notification and without
// the safety poll.
func TestClaimsAtOnceWhenListenIsBack(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	store := p.Store(t)
	proxy := p.Proxy(t) // the listener's way to the server, which the test cuts
	coll := newCollection(t, store)
	tg := wakeTarget(t)
	e, err := New(allowLoopback(Config{InstanceID: "failover", SafetyPoll: noPoll, ErrorBackoff: 100 * time.Millisecond}),
		Deps{Store: store, Notifier: models.NewListener(proxy.DSN("sked"), quietLogger()), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	first := putJob(t, store, coll, "first", `{"action":`+httpAction(tg.URL+"/first", "")+`}`)
	waitHistory(t, store, first, 1, time.Minute) // nothing in flight from here on

	// The listener loses its connection and cannot reconnect; the server
	// restarts.
	proxy.Hold()
	select {
	case <-proxy.Waiting(1):
	case <-time.After(time.Minute):
		t.Fatal("the listener did not try to reconnect")
	}
	p.Halt()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	id := putJob(t, store, coll, "lost", `{"action":`+httpAction(tg.URL+"/lost", "")+`}`)
	for _, r := range tg.requests() {
		if r.Path == "/lost" {
			t.Fatal("the job ran before LISTEN was back: something else woke the engine, the test cannot tell")
		}
	}
	proxy.Release()
	waitPath(t, tg, "/lost", time.Minute)
	if h := waitHistory(t, store, id, 1, time.Minute); h[0].Status != models.StatusCompleted {
		t.Errorf("the job's attempt: %s, want completed", h[0].Status)
	}
}
