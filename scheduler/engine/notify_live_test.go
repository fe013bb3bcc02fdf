package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// sentTry is one recorded try of a notification, as onSent saw it.
type sentTry struct {
	ID          int64
	ChannelName string
	Try         int
	Result      models.DeliveryResult
}

// startNotifying starts an engine like startLive whose every recorded
// notification try is sent on the returned channel.
func startNotifying(t testing.TB, store *models.Store, cfg Config) (*live, chan sentTry) {
	t.Helper()
	return startNotifyingWith(t, store, cfg, nil)
}

// startNotifyingWith is startNotifying with written, when not nil, called
// with every batch of results the engine writes.
func startNotifyingWith(t testing.TB, store *models.Store, cfg Config, written func([]models.AttemptOutcome)) (*live, chan sentTry) {
	t.Helper()
	return startNotifyingLogged(t, store, cfg, quietLogger(), written)
}

// startNotifyingLogged is startNotifyingWith with the engine's logger.
func startNotifyingLogged(t testing.TB, store *models.Store, cfg Config, logger *slog.Logger,
	written func([]models.AttemptOutcome)) (*live, chan sentTry) {
	t.Helper()
	if cfg.SafetyPoll == 0 {
		cfg.SafetyPoll = noPoll
	}
	e, err := New(allowLoopback(cfg), Deps{Store: store, Notifier: models.NewListener(store.DSN(), quietLogger()), Logger: logger,
		JobURL: func(ws, rg, coll, job string) string {
			return "https://sked.example/c/" + ws + "/" + rg + "/" + coll + "/jobs/" + job
		}})
	if err != nil {
		t.Fatal(err)
	}
	l := &live{Engine: e, done: make(chan models.FinishedAttempt, 100000)}
	e.onFinish = func(batch []models.AttemptOutcome, done []models.FinishedAttempt) {
		if written != nil {
			written(batch)
		}
		for _, d := range done {
			select {
			case l.done <- d:
			default:
			}
		}
	}
	tries := make(chan sentTry, 100000)
	e.outbox.onSent = func(n *models.Notification, r models.DeliveryResult) {
		tries <- sentTry{ID: n.ID, ChannelName: n.ChannelName, Try: n.Attempts, Result: r}
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	return l, tries
}

func TestNotifyExactlyOnceAcrossThreeEngines(t *testing.T) {
	dsn := testdb.DSN(t)
	h := newHook(t, nil)
	h.seen = make(chan hookEvent, 10000)
	tg := newTarget(t, failingPaths)
	stores := make([]*models.Store, 3)
	engines := make([]*live, 3)
	for i := range engines {
		stores[i] = testdb.Open(t, dsn, testdb.Options())
		// Few senders each: the three engines compete for the same rows.
		engines[i], _ = startNotifying(t, stores[i], Config{InstanceID: fmt.Sprintf("engine-%d", i), NotifyWorkers: 3})
	}
	coll := newCollection(t, stores[0])
	ws := models.DefaultWorkspaceID
	addWebhook(t, stores[0], ws, "hook", h.URL, h.secret)
	addRule(t, stores[0], ws, "faults", `{"channel":"hook","events":["occurrenceFaulted"]}`)
	const jobs = 200
	for i := range jobs {
		putJob(t, stores[i%3], coll, fmt.Sprintf("j%d", i), `{"action":`+httpAction(tg.URL+"/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	}
	byJob := map[string]int{}
	deadline := time.After(2 * time.Minute)
	for len(byJob) < jobs {
		select {
		case ev := <-h.seen:
			byJob[ev.Event.Job]++
		case <-deadline:
			t.Fatalf("received the notifications of %d jobs of %d", len(byJob), jobs)
		}
	}
	for _, e := range engines {
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	byID := map[string]int{}
	for _, ev := range h.events() {
		byID[ev.ID]++
		if want := "https://sked.example/c/default/rg/" + coll.Name + "/jobs/" + ev.Event.Job; ev.Event.URL != want {
			t.Errorf("url %q, want %q", ev.Event.URL, want)
		}
		if ev.Event.Type != "occurrenceFaulted" {
			t.Errorf("event %+v", ev.Event)
		}
	}
	for id, n := range byID {
		if n != 1 {
			t.Errorf("webhook-id %s received %d times", id, n)
		}
	}
	for job, n := range byJob {
		if n != 1 {
			t.Errorf("job %s: %d notifications", job, n)
		}
	}
	if len(byID) != jobs || h.bad != 0 {
		t.Errorf("%d webhook-ids, %d bad signatures; want %d and 0", len(byID), h.bad, jobs)
	}
	log := deliveries(t, stores[0])
	for _, n := range log {
		if n.Status != models.NotificationDelivered || n.Attempts != 1 {
			t.Errorf("delivery log %+v", n)
		}
	}
	if len(log) != jobs {
		t.Errorf("delivery log of %d notifications, want %d", len(log), jobs)
	}
}

func TestNotifyFailingChannelsAreRetriedAndDoNotDelayJobs(t *testing.T) {
	store := testdb.Store(t)
	coll := newCollection(t, store)
	tg := newTarget(t, failingPaths)
	ws := models.DefaultWorkspaceID
	// A channel that answers 500, one that hangs until released (then
	// 503), one that refuses connections.
	five := newHook(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	release := make(chan struct{})
	hangs := newHook(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/hook"
	ln.Close()
	addWebhook(t, store, ws, "five", five.URL, five.secret)
	addWebhook(t, store, ws, "hangs", hangs.URL, hangs.secret)
	addWebhook(t, store, ws, "refuses", refused, five.secret)
	for _, ch := range []string{"five", "hangs", "refuses"} {
		addRule(t, store, ws, ch, `{"channel":"`+ch+`","events":["attemptFailed"]}`)
	}
	const backoff = 150 * time.Millisecond
	e, tries := startNotifying(t, store, Config{NotifyWorkers: 2, NotifyTries: 3, NotifyBackoff: backoff})

	// One failing job, then 40 jobs due over the next four seconds, all
	// while the hanging channel holds one of the two senders.
	putJob(t, store, coll, "bad", `{"action":`+httpAction(tg.URL+"/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	t0 := time.Now().Add(2 * time.Second).Truncate(time.Second)
	ids := make([]int64, 40)
	for i := range ids {
		ids[i] = putJob(t, store, coll, fmt.Sprintf("ok%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
			rfc(t0.Add(time.Duration(i%4)*time.Second)), httpAction(tg.URL+"/ok", "")))
	}
	for range len(ids) + 1 {
		e.next(t)
	}
	// Every job ran, on time, with the hanging channel still hanging.
	var late time.Duration
	for _, id := range ids {
		h, err := store.History(context.Background(), models.HistoryQuery{JobID: id, Limit: 10})
		if err != nil || len(h) != 1 || h[0].LatenessMs == nil {
			t.Fatalf("history of job %d: %+v %v", id, h, err)
		}
		late = max(late, time.Duration(*h[0].LatenessMs)*time.Millisecond)
	}
	t.Logf("the jobs' largest start lateness while a channel hangs: %v", late)
	if late > 5*time.Second {
		t.Errorf("a job started %v late behind a hanging channel", late)
	}
	close(release)

	// Each channel: three tries, the waits between them doubling, then
	// given up.
	byChannel := map[string][]sentTry{}
	deadline := time.After(time.Minute)
	for given := 0; given < 3; {
		select {
		case s := <-tries:
			byChannel[s.ChannelName] = append(byChannel[s.ChannelName], s)
			if s.Result.RetryAt == nil {
				given++
			}
		case <-deadline:
			t.Fatalf("tries so far: %+v", byChannel)
		}
	}
	for ch, ts := range byChannel {
		if len(ts) != 3 || ts[2].Result.Delivered || ts[2].Result.RetryAt != nil {
			t.Errorf("%s: tries %+v", ch, ts)
			continue
		}
		for i := 1; i < 3; i++ {
			wait := backoff << (i - 1)
			if gap := ts[i].Result.Now.Sub(ts[i-1].Result.Now); gap < wait {
				t.Errorf("%s: try %d came %v after the one before, want at least %v", ch, i+1, gap, wait)
			}
		}
	}
	for _, n := range deliveries(t, store) {
		if n.Status != models.NotificationFailed || n.Attempts != 3 || n.FinishedAt == nil {
			t.Errorf("%s: %+v", n.ChannelName, n)
		}
		switch n.ChannelName {
		case "five":
			if n.LastStatusCode != http.StatusInternalServerError || !strings.Contains(n.LastError, "500") {
				t.Errorf("five: %d %q", n.LastStatusCode, n.LastError)
			}
		case "hangs":
			if n.LastStatusCode != http.StatusServiceUnavailable {
				t.Errorf("hangs: %d %q", n.LastStatusCode, n.LastError)
			}
		case "refuses":
			if n.LastStatusCode != 0 || !strings.Contains(strings.ToLower(n.LastError), "refused") {
				t.Errorf("refuses: %d %q", n.LastStatusCode, n.LastError)
			}
		}
	}
}

// TestNotifyStopPutsBackWhatItCouldNotSend: a send still hanging when
// Stop's deadline passes is interrupted and put back, due at once; the
// next engine delivers it.
func TestNotifyStopPutsBackWhatItCouldNotSend(t *testing.T) {
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	coll := newCollection(t, store)
	tg := newTarget(t, failingPaths)
	var hang atomic.Bool
	hang.Store(true)
	h := newHook(t, func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	ws := models.DefaultWorkspaceID
	addWebhook(t, store, ws, "hook", h.URL, h.secret)
	addRule(t, store, ws, "faults", `{"channel":"hook","events":["occurrenceFaulted"]}`)
	h.seen = make(chan hookEvent, 10)
	a, _ := startNotifying(t, store, Config{InstanceID: "A"})
	putJob(t, store, coll, "bad", `{"action":`+httpAction(tg.URL+"/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	first := <-h.seen // the send hangs
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	log := deliveries(t, store)
	if len(log) != 1 || log[0].Status != models.NotificationPending || log[0].Attempts != 1 ||
		!strings.Contains(log[0].LastError, "interrupted") {
		t.Fatalf("after Stop: %+v", log)
	}
	hang.Store(false)
	_, tries := startNotifying(t, testdb.Open(t, dsn, testdb.Options()), Config{InstanceID: "B"})
	select {
	case s := <-tries:
		if !s.Result.Delivered || s.Try != 2 {
			t.Errorf("engine B: %+v", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("engine B did not send the notification")
	}
	again := <-h.seen
	if again.ID != first.ID {
		t.Errorf("sent again as %s, first as %s: want the same webhook-id", again.ID, first.ID)
	}
}
