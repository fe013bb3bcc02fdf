package engine

import (
	"context"
	"fmt"
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

// TestFailoverToAStreamingStandby: the engine and the write service use a
// multi-host URL (target_session_attrs=read-write) naming a primary and
// its streaming standby. The primary is demoted (made read-only but left
// up, as Patroni demotes it) or dies, and the standby is promoted: a job
// created after the promotion (its write refused by the old primary and
// run again on the new one) runs, and the engine writes its result there.
func TestFailoverToAStreamingStandby(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"demoted", "dead"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			primary := testdb.PrivateCluster(t)
			standby := primary.Standby(t)
			dsn := fmt.Sprintf("host=%s,%s port=5432,5432 user=sked dbname=sked sslmode=disable target_session_attrs=read-write connect_timeout=2",
				primary.Dir(), standby.Dir())
			store := testdb.Open(t, dsn, testdb.Options())
			coll := newCollection(t, store)
			tg := wakeTarget(t)
			listener := models.NewListener(dsn, quietLogger())
			listener.IdleCheck = 200 * time.Millisecond
			e, err := New(allowLoopback(Config{InstanceID: "failover-" + how, SafetyPoll: noPoll, ErrorBackoff: 100 * time.Millisecond}),
				Deps{Store: store, Notifier: listener, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Stop(context.Background()) })
			before := putJob(t, store, coll, "before", `{"action":`+httpAction(tg.URL+"/before", "")+`}`)
			waitHistory(t, store, before, 1, time.Minute)

			switch how {
			case "demoted":
				primary.SetReadOnly(t, true)
				standby.CatchUp(t, primary)
			case "dead":
				standby.CatchUp(t, primary)
				primary.Halt()
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := standby.Promote(ctx); err != nil {
				t.Fatal(err)
			}
			promoted := time.Now()
			after := putJob(t, store, coll, "after", `{"action":`+httpAction(tg.URL+"/after", "")+`}`)
			created := time.Now()
			h := waitHistory(t, store, after, 1, time.Minute)
			t.Logf("%s primary: the job created %s after the promotion ran and its result was written %s after it",
				how, created.Sub(promoted).Round(time.Millisecond), time.Since(promoted).Round(time.Millisecond))
			if h[0].Status != models.StatusCompleted {
				t.Errorf("the job's attempt: %s, want completed", h[0].Status)
			}
			var n int
			standby.Query(t, "sked", fmt.Sprintf(`SELECT count(*) FROM job_history WHERE job_id = %d`, after), &n)
			if n != 1 {
				t.Errorf("the new primary holds %d history entries of the job, want 1", n)
			}
			if err := store.CheckReady(ctx); err != nil {
				t.Errorf("CheckReady after the failover: %v", err)
			}
		})
	}
}
