package engine

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sked/models"
	"sked/scheduler/action"
)

// memStore is an in-memory Store for the loop's timing: it holds due
// attempts; a claim starts those that are due, and a failed attempt's next
// attempt is stored.
type memStore struct {
	mu       sync.Mutex
	due      []memAttempt
	nextID   int64
	def      json.RawMessage // memJob when nil
	claims   []time.Time
	starts   []time.Duration // lateness of every started attempt
	started  []memAttempt    // every started attempt, with its start
	ended    []time.Time     // the end of every finished attempt
	finished int
	released []int64
	// dbAhead is how far the database's clock is ahead of the test's;
	// beats are the heartbeats asked for, in order.
	beats []models.Heartbeat
	// beatErr, when set, fails the heartbeats.
	dbAhead time.Duration
	beatErr error
	// notifyAt, when not zero, is a notification due then that no claim
	// gets (held by another instance): the outbox claims again and again;
	// notifyClaims counts its claims.
	notifyAt     time.Time
	notifyClaims int
	// deadlines are the open deadline moments (deadlines_test.go);
	// decidedAt the engine's now of each decision, decideCalls the calls.
	deadlines   []time.Time
	decidedAt   []time.Time
	decideCalls int
	// rowCost, when set, is a claim's time per attempt it may start
	// (req.Limit), spent before it takes its attempts, as a transaction's
	// time grows with its batch (overlap_test.go); inClaim counts the
	// claims under way and maxInClaim the most at once.
	rowCost    time.Duration
	inClaim    int
	maxInClaim int
}

// memAttempt is an attempt of memStore's one job.
type memAttempt struct {
	at      time.Time // due
	action  string
	attempt int
	start   time.Time
}

var memJob = json.RawMessage(`{"action":{"type":"http","request":{"uri":"http://sink","method":"GET"}}}`)

func (s *memStore) add(at time.Time) {
	s.mu.Lock()
	s.due = append(s.due, memAttempt{at: at, action: string(models.MainAction), attempt: 1})
	s.mu.Unlock()
}

// Claim records req.Outcomes, starts the due attempts and, with
// req.NextWake, reads the next wake-up when it started fewer than
// req.Limit, as *models.Store does.
func (s *memStore) Claim(_ context.Context, req models.ClaimRequest) (models.ClaimResult, error) {
	s.mu.Lock()
	s.inClaim++
	s.maxInClaim = max(s.maxInClaim, s.inClaim)
	cost := s.rowCost * time.Duration(req.Limit)
	s.mu.Unlock()
	time.Sleep(cost)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.inClaim-- }()
	var res models.ClaimResult
	if len(req.Outcomes) > 0 {
		res.Finished = s.finish(req.Outcomes)
	}
	s.claims = append(s.claims, req.Now)
	def := s.def
	if def == nil {
		def = memJob
	}
	var out []models.ClaimedAttempt
	rest := s.due[:0]
	for _, a := range s.due {
		if !a.at.After(req.Now) && len(out) < req.Limit {
			s.nextID++
			out = append(out, models.ClaimedAttempt{ID: s.nextID, JobID: 1, Definition: def, ExpectedTime: a.at,
				Action: models.ActionName(a.action), Attempt: a.attempt, DueAt: a.at, StartedAt: req.Now})
			s.starts = append(s.starts, req.Now.Sub(a.at))
			a.start = req.Now
			s.started = append(s.started, a)
			continue
		}
		rest = append(rest, a)
	}
	s.due = rest
	res.Attempts = out
	if req.NextWake && len(out) < req.Limit {
		res.WakeRead = true
		res.NextWake, res.HasNext = s.nextWake()
	}
	return res, nil
}

func (s *memStore) FinishAttempts(_ context.Context, o []models.AttemptOutcome) ([]models.FinishedAttempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finish(o), nil
}

// finish records outcomes o; s.mu is held.
func (s *memStore) finish(o []models.AttemptOutcome) []models.FinishedAttempt {
	s.finished += len(o)
	out := make([]models.FinishedAttempt, len(o))
	for i := range o {
		out[i] = models.FinishedAttempt{AttemptID: o[i].AttemptID, Recorded: true, Action: models.MainAction}
		s.ended = append(s.ended, o[i].Now)
		if n := o[i].Next; n != nil {
			s.due = append(s.due, memAttempt{at: n.DueAt, action: string(n.Action), attempt: n.Attempt})
			out[i].NextStored = true
		}
	}
	return out
}

func (s *memStore) NextWake(context.Context, time.Time) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.nextWake()
	return at, ok, nil
}

// nextWake is the earliest due time; s.mu is held.
func (s *memStore) nextWake() (time.Time, bool) {
	var first time.Time
	for _, a := range s.due {
		if first.IsZero() || a.at.Before(first) {
			first = a.at
		}
	}
	return first, !first.IsZero()
}

func (s *memStore) DueBacklog(context.Context, time.Time) (int64, error) { return 0, nil }

func (s *memStore) TargetGauges(context.Context) ([]models.TargetGauge, error) { return nil, nil }
func (s *memStore) ReleaseAttempts(_ context.Context, _ string, ids []int64, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = append(s.released, ids...)
	return int64(len(ids)), nil
}
func (s *memStore) EnsureHistoryPartitions(context.Context, time.Time) (int, error) { return 0, nil }
func (s *memStore) Prune(context.Context, time.Time, models.Retention) (models.PruneStats, error) {
	return models.PruneStats{}, nil
}

// Heartbeat answers with the database's clock: the test's clock (the
// bubble's, under synctest) moved by dbAhead.
func (s *memStore) Heartbeat(_ context.Context, hb models.Heartbeat) (models.HeartbeatResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beats = append(s.beats, hb)
	if s.beatErr != nil {
		return models.HeartbeatResult{}, s.beatErr
	}
	return models.HeartbeatResult{DatabaseTime: time.Now().Add(s.dbAhead)}, nil
}
func (s *memStore) RemoveInstance(context.Context, string) (bool, error) { return true, nil }

// FeedBackfills has no backfills to feed.
func (s *memStore) FeedBackfills(context.Context, time.Time) (int, error) { return 0, nil }

// FireTriggers has no triggers to fire.
func (s *memStore) FireTriggers(context.Context, time.Time) (int, error) { return 0, nil }

// UpstreamJobs has no triggers either.
func (s *memStore) UpstreamJobs(context.Context) ([]int64, error) { return nil, nil }

// memStore's collections do not sign, and it holds no notifications.

func (s *memStore) SigningOf(context.Context, int64) (*models.Signing, error) {
	return nil, models.ErrNotFound
}
func (s *memStore) ClaimNotifications(context.Context, models.ClaimParams) ([]models.Notification, error) {
	s.mu.Lock()
	s.notifyClaims++
	s.mu.Unlock()
	return nil, nil
}
func (s *memStore) FinishNotification(context.Context, int64, string, models.DeliveryResult) error {
	return models.ErrConflict
}
func (s *memStore) FinishNotifications(_ context.Context, _ string, tries []models.NotificationTry) ([]int64, error) {
	ids := make([]int64, len(tries))
	for i := range tries {
		ids[i] = tries[i].ID
	}
	return ids, nil
}
func (s *memStore) ReleaseNotifications(context.Context, string, []int64, time.Time) (int64, error) {
	return 0, nil
}
func (s *memStore) NextNotification(context.Context) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notifyAt, !s.notifyAt.IsZero(), nil
}
func (s *memStore) ChannelByID(context.Context, int64) (*models.Channel, error) {
	return nil, models.ErrNotFound
}
func (s *memStore) JobByID(context.Context, int64) (*models.Job, error) {
	return nil, models.ErrNotFound
}
func (s *memStore) WatchedMonitors(context.Context) ([]models.WatchedMonitor, error) { return nil, nil }
func (s *memStore) DecideMonitor(context.Context, models.MonitorDecision) (models.MonitorDecided, error) {
	return models.MonitorDecided{}, nil
}
func (s *memStore) RaiseSlowRun(context.Context, int64, time.Time, time.Time) (bool, error) {
	return false, nil
}
func (s *memStore) NextDeadline(context.Context) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, d := range s.deadlines {
		if next.IsZero() || d.Before(next) {
			next = d
		}
	}
	return next, !next.IsZero(), nil
}
func (s *memStore) DecideDeadlines(_ context.Context, now time.Time) (models.DeadlinesDecided, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decideCalls++
	var open []time.Time
	var out models.DeadlinesDecided
	for _, d := range s.deadlines {
		if d.After(now) {
			open = append(open, d)
			continue
		}
		s.decidedAt = append(s.decidedAt, now)
		out.Missed++
	}
	s.deadlines = open
	return out, nil
}
func (s *memStore) RaiseJobSlowRun(context.Context, models.SlowAttempt) (bool, error) {
	return false, nil
}

// memNotifier is a Notifier fed by the test.
type memNotifier struct {
	c   chan struct{}
	due chan time.Time
}

func (n *memNotifier) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (n *memNotifier) C() <-chan struct{}            { return n.c }
func (n *memNotifier) Due() <-chan time.Time         { return n.due }
func (n *memNotifier) Sends() <-chan struct{}        { return nil }

// okExecutor succeeds after d.
type okExecutor struct{ d time.Duration }

func (x okExecutor) Execute(ctx context.Context, _ *action.Attempt) action.Result {
	select {
	case <-time.After(x.d):
		return action.Result{Succeeded: true, StatusCode: 200, Message: "HTTP 200 OK"}
	case <-ctx.Done():
		return action.Result{Message: "interrupted"}
	}
}

func TestLoopSleepsUntilTheEarliestDueTimeWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		notifier := &memNotifier{c: make(chan struct{}, 1)}
		t0 := time.Now()
		store.add(t0.Add(10 * time.Second))
		store.add(t0.Add(70 * time.Second))
		store.add(t0.Add(70 * time.Second))
		e, err := New(Config{SafetyPoll: noPoll, RetentionInterval: -1}, Deps{Store: store, Notifier: notifier,
			Executor: okExecutor{d: 2 * time.Second}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Second)
		// A job created elsewhere: the database notifies.
		store.add(time.Now())
		notifier.c <- struct{}{}
		time.Sleep(time.Second)
		// Run now from this instance: the write service queues the
		// attempt, then wakes the engine.
		store.add(time.Now())
		e.Wake()
		time.Sleep(time.Hour)
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		if len(store.starts) != 5 || store.finished != 5 {
			t.Fatalf("started %d, finished %d; want 5", len(store.starts), store.finished)
		}
		for i, l := range store.starts {
			if l != 0 {
				t.Errorf("attempt %d started %s late", i, l)
			}
		}
		// Claims: at start, at each due time or wake-up, and none for the
		// idle hour (the safety poll is an hour): a handful, not thousands.
		if n := len(store.claims); n > 75 {
			t.Errorf("%d claims in 1h42m: the loop polls", n)
		}
		t.Logf("%d claims", len(store.claims))
	})
}

func TestStopWaitsForRunningAttemptsThenInterruptsThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &memStore{}
		store.add(time.Now())
		e, err := New(Config{ShutdownTimeout: 10 * time.Second, RetentionInterval: -1}, Deps{Store: store,
			Executor: okExecutor{d: 5 * time.Second}, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		var outcomes []models.AttemptOutcome
		e.onFinish = func(o []models.AttemptOutcome, _ []models.FinishedAttempt) { outcomes = append(outcomes, o...) }
		e.Start()
		synctest.Wait()
		start := time.Now()
		e.Stop(context.Background())
		if d := time.Since(start); d != 5*time.Second || len(outcomes) != 1 || !outcomes[0].Succeeded {
			t.Fatalf("Stop took %s with %+v; want it to wait 5 s for the running attempt", d, outcomes)
		}

		store.add(time.Now())
		e, _ = New(Config{ShutdownTimeout: 10 * time.Second, RetentionInterval: -1}, Deps{Store: store,
			Executor: okExecutor{d: time.Hour}, Logger: quietLogger()})
		outcomes = nil
		e.onFinish = func(o []models.AttemptOutcome, _ []models.FinishedAttempt) { outcomes = append(outcomes, o...) }
		e.Start()
		synctest.Wait()
		start = time.Now()
		e.Stop(context.Background())
		if d := time.Since(start); d != 10*time.Second || len(outcomes) != 0 || len(store.released) != 1 {
			t.Fatalf("Stop took %s with %+v, released %v; want the attempt interrupted after 10 s and released", d, outcomes, store.released)
		}
	})
}
