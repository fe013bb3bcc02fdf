package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// Backfills through the engine (SPEC §16.3): the runs carry their
// occurrence's expected time and Idempotency-Key, missing skips what
// succeeded, a repeated backfill sends nothing new, at most maxConcurrent
// are in flight, cancel stops the rest.

// backfillEnv is an env with an hourly job whose occurrences from t0 on
// are past, and a target that fails the first request of the occurrence
// at failAt and checks, at every request, how many of the job's backfill
// runs are in flight in the database.
type backfillEnv struct {
	*env
	id        int64
	t0        time.Time
	db        *sql.DB
	mu        sync.Mutex
	inFlight  int // the most backfill runs in flight seen by a request
	failAt    time.Time
	failed    bool
	expected  []string
	keys      []string
	inFlightQ string
}

func newBackfillEnv(t *testing.T) *backfillEnv {
	t.Helper()
	b := &backfillEnv{}
	b.env = newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		if err := b.db.QueryRow(b.inFlightQ, b.id).Scan(&n); err != nil {
			t.Errorf("in flight: %v", err)
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		b.inFlight = max(b.inFlight, n)
		exp := r.Header.Get("x-ms-scheduler-expected-execution-time")
		b.expected = append(b.expected, exp)
		b.keys = append(b.keys, r.Header.Get("Idempotency-Key"))
		if at, err := time.Parse(time.RFC3339Nano, exp); err == nil && at.Equal(b.failAt) && !b.failed {
			b.failed = true
			http.Error(w, "not today", http.StatusInternalServerError)
		}
	})
	var err error
	if b.db, err = sql.Open("pgx", b.store.DSN()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.db.Close() })
	b.inFlightQ = `SELECT count(*) FROM backfill_runs WHERE job_id = $1 AND state = 'started'`
	b.t0 = b.clock.Now().Truncate(time.Hour).Add(-10 * time.Hour)
	b.failAt = b.t0.Add(2 * time.Hour)
	b.id = b.put("hourly", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour","interval":1},"action":%s}`,
		rfc(b.t0), b.action("/hook", `"retryPolicy":{"retryType":"none"}`)))
	return b
}

// backfill backfills the job over [t0+from h, t0+to h).
func (b *backfillEnv) backfill(from, to int, only models.BackfillOnly, maxConcurrent int, dry bool) *catalog.BackfillResult {
	b.t.Helper()
	res, err := b.cat.Backfill(b.ctx, catalogtest.Actor, b.coll, b.job(b.id), catalog.BackfillInput{
		From: b.t0.Add(time.Duration(from) * time.Hour), To: b.t0.Add(time.Duration(to) * time.Hour),
		Only: only, Order: models.BackfillOldestFirst, MaxConcurrent: maxConcurrent, DryRun: dry})
	if err != nil {
		b.t.Fatal(err)
	}
	return res
}

// sent returns the expected times and keys the target saw, and forgets them.
func (b *backfillEnv) sent() (expected, keys []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	expected, keys = b.expected, b.keys
	b.expected, b.keys = nil, nil
	return expected, keys
}

// decisions writes a result's decisions as "hour:action[:reason]".
func (b *backfillEnv) decisions(res *catalog.BackfillResult) []string {
	var out []string
	for _, d := range res.Decisions {
		s := fmt.Sprintf("%d:%s", int(d.ExpectedTime.Sub(b.t0)/time.Hour), d.Action)
		if d.Reason != "" {
			s += ":" + d.Reason
		}
		out = append(out, s)
	}
	return out
}

func TestBackfillRunsEachOccurrenceOnceWithItsExpectedTimeAndKey(t *testing.T) {
	b := newBackfillEnv(t)
	dry := b.backfill(0, 6, models.BackfillMissing, 2, true)
	wantLines(t, b.decisions(dry), "0:run", "1:run", "2:run", "3:run", "4:run", "5:run")
	if bs, _ := b.store.Backfills(b.ctx, b.id, 10); len(bs) != 0 {
		t.Fatalf("a dry run created %+v", bs)
	}

	res := b.backfill(0, 6, models.BackfillMissing, 2, false)
	if res.Backfill == nil || res.Backfill.Total != 6 || res.Backfill.Started != 2 || res.Backfill.Queued != 4 {
		t.Fatalf("backfill %+v", res.Backfill)
	}
	b.drain()
	expected, keys := b.sent()
	var want, wantKeys []string
	for h := range 6 {
		at := b.t0.Add(time.Duration(h) * time.Hour)
		want = append(want, at.UTC().Format(time.RFC3339))
		wantKeys = append(wantKeys, strconv.FormatInt(b.id, 10)+":"+at.UTC().Format(time.RFC3339Nano))
	}
	slices.Sort(expected)
	slices.Sort(keys)
	if fmt.Sprint(expected) != fmt.Sprint(want) || fmt.Sprint(keys) != fmt.Sprint(wantKeys) {
		t.Fatalf("the target saw expected times %v keys %v, want %v %v", expected, keys, want, wantKeys)
	}
	if b.inFlight > 2 || b.inFlight == 0 {
		t.Errorf("%d backfill runs in flight at once, want at most maxConcurrent 2", b.inFlight)
	}
	got, err := b.store.Backfill(b.ctx, b.id, res.Backfill.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != models.BackfillDone || got.Succeeded != 5 || got.Failed != 1 || got.Done() != 6 || got.EndedAt == nil {
		t.Errorf("after the runs: %+v", got)
	}
	for _, h := range b.history(b.id) {
		if h.BackfillID == nil || *h.BackfillID != res.Backfill.ID {
			t.Errorf("history entry %s at %s does not name the backfill", historyLine(h), h.ExpectedExecutionTime)
		}
	}

	// Again, missing: only the failed occurrence runs; a third time
	// nothing runs, and a backfill of failed ones finds none.
	again := b.backfill(0, 6, models.BackfillMissing, 2, false)
	wantLines(t, b.decisions(again), "0:skip:already succeeded", "1:skip:already succeeded", "2:run",
		"3:skip:already succeeded", "4:skip:already succeeded", "5:skip:already succeeded")
	b.drain()
	if expected, _ := b.sent(); len(expected) != 1 {
		t.Errorf("the second backfill sent %v, want the failed occurrence only", expected)
	}
	third := b.backfill(0, 8, models.BackfillMissing, 2, false)
	b.drain()
	if expected, _ := b.sent(); len(expected) != 2 || third.Backfill.Total != 2 {
		t.Errorf("the third backfill (two more hours) sent %v (total %d), want the two new ones", expected, third.Backfill.Total)
	}
	fourth := b.backfill(0, 8, models.BackfillMissing, 2, false)
	b.drain()
	if expected, _ := b.sent(); len(expected) != 0 || fourth.Backfill.State != models.BackfillDone || fourth.Backfill.Total != 0 {
		t.Errorf("repeating the backfill sent %v (%+v), want nothing", expected, fourth.Backfill)
	}
	failed := b.backfill(0, 9, models.BackfillOnlyFailed, 1, true)
	if d := b.decisions(failed); d[8] != "8:skip:not failed (it never ran)" || d[0] != "0:skip:already succeeded" {
		t.Errorf("failed only: %v", d)
	}
}

func TestBackfillQueuedByAnotherIsSkippedAndCancelStopsTheRest(t *testing.T) {
	b := newBackfillEnv(t)
	first := b.backfill(0, 4, models.BackfillMissing, 1, false)
	second := b.backfill(0, 5, models.BackfillAll, 1, false)
	n := strconv.FormatInt(first.Backfill.ID, 10)
	wantLines(t, b.decisions(second), "0:skip:already queued by backfill "+n, "1:skip:already queued by backfill "+n,
		"2:skip:already queued by backfill "+n, "3:skip:already queued by backfill "+n, "4:run")
	got, err := b.cat.CancelBackfill(b.ctx, catalogtest.Actor, b.coll, b.job(b.id), first.Backfill.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != models.BackfillCancelled || got.Cancelled != 4 || got.Queued != 0 || got.Started != 0 {
		t.Errorf("cancelled: %+v", got)
	}
	b.drain()
	expected, _ := b.sent()
	if want := []string{rfc(b.t0.Add(4 * time.Hour))}; fmt.Sprint(expected) != fmt.Sprint(want) {
		t.Errorf("after the cancel the target saw %v, want only the second backfill's %v", expected, want)
	}
	if att := b.attempts(b.id); len(att) != 0 {
		t.Errorf("open attempts left: %+v", att)
	}
	// A cancelled backfill's occurrences may be backfilled again.
	third := b.backfill(0, 2, models.BackfillMissing, 1, true)
	wantLines(t, b.decisions(third), "0:run", "1:run")
}

// TestBackfillExactlyOnceAcrossThreeEngines: three live engines on one
// database run a backfill of 30 occurrences with maxConcurrent 3 against
// a real target that records every request: each occurrence's
// Idempotency-Key arrives exactly once, and never more than 3 requests
// are in flight at once.
func TestBackfillExactlyOnceAcrossThreeEngines(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	inFlight, most := 0, 0
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		seen[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // long enough to overlap if nothing held them back
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	dsn := testdb.DSN(t)
	var engines []*live
	for i := range 3 {
		engines = append(engines, startLive(t, openStore(t, dsn), Config{InstanceID: fmt.Sprintf("backfill-%d", i)}))
	}
	store := openStore(t, dsn)
	coll := newCollection(t, store)
	t0 := time.Now().UTC().Truncate(time.Hour).Add(-40 * time.Hour)
	id := putJob(t, store, coll, "hourly", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour","interval":1},"action":%s}`,
		rfc(t0), httpAction(tg.URL+"/hook", `"retryPolicy":{"retryType":"none"}`)))
	res, err := engines[0].cat.Backfill(context.Background(), catalogtest.Actor, coll, jobByID(t, store, id), catalog.BackfillInput{
		From: t0, To: t0.Add(30 * time.Hour), Only: models.BackfillMissing, Order: models.BackfillNewestFirst, MaxConcurrent: 3})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := store.Backfill(context.Background(), id, res.Backfill.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.State == models.BackfillDone {
			if b.Succeeded != 30 {
				t.Errorf("done: %+v", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the backfill did not end within 60 s: %+v", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for h := range 30 {
		key := fmt.Sprintf("%d:%s", id, t0.Add(time.Duration(h)*time.Hour).Format(time.RFC3339Nano))
		if seen[key] != 1 {
			t.Errorf("occurrence %s received %d times, want once", key, seen[key])
		}
	}
	if len(seen) != 30 {
		t.Errorf("%d keys received, want 30", len(seen))
	}
	if most > 3 {
		t.Errorf("%d requests in flight at once, over maxConcurrent 3", most)
	}
	t.Logf("at most %d in flight", most)
}

// TestFeedBackfillsRequeuesALostRun: the heartbeat's refill
// (Store.FeedBackfills) queues again a started run whose attempt is gone
// without having run, and starts it again; the backfill then ends as its
// runs do.
func TestFeedBackfillsRequeuesALostRun(t *testing.T) {
	b := newBackfillEnv(t)
	res := b.backfill(0, 2, models.BackfillMissing, 1, false)
	if _, err := b.db.Exec(`DELETE FROM job_attempts WHERE job_id = $1`, b.id); err != nil {
		t.Fatal(err)
	}
	if n, err := b.store.FeedBackfills(b.ctx, b.clock.Now()); err != nil || n != 1 {
		t.Fatalf("FeedBackfills: %d %v", n, err)
	}
	got, err := b.store.Backfill(b.ctx, b.id, res.Backfill.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Started != 1 || got.Queued != 1 || got.Failed != 0 || len(b.attempts(b.id)) != 1 {
		t.Fatalf("after the refill: %+v, %d attempts", got, len(b.attempts(b.id)))
	}
	b.drain()
	if got, _ = b.store.Backfill(b.ctx, b.id, res.Backfill.ID); got.State != models.BackfillDone || got.Succeeded != 2 {
		t.Errorf("at the end: %+v", got)
	}
	if n, err := b.store.FeedBackfills(b.ctx, b.clock.Now()); err != nil || n != 0 {
		t.Errorf("FeedBackfills with nothing running: %d %v", n, err)
	}
}

// TestRetentionDeletesEndedBackfills: a backfill that ended longer ago than
// the history's maximum age goes with its runs; a running one stays.
func TestRetentionDeletesEndedBackfills(t *testing.T) {
	b := newBackfillEnv(t)
	done := b.backfill(0, 2, models.BackfillAll, 2, false)
	b.drain()
	running := b.backfill(2, 4, models.BackfillAll, 1, false)
	if got, err := b.store.Backfill(b.ctx, b.id, done.Backfill.ID); err != nil || got.State != models.BackfillDone {
		t.Fatalf("the first backfill: %+v %v", got, err)
	}
	b.engine.cfg.HistoryMaxAge = 30 * 24 * time.Hour
	if st, err := b.engine.prune(b.ctx); err != nil || st.Backfills != 0 {
		t.Fatalf("prune right after the backfill: %+v %v", st, err)
	}
	b.clock.Add(31 * 24 * time.Hour)
	st, err := b.engine.prune(b.ctx)
	if err != nil || st.Backfills != 1 {
		t.Fatalf("prune 31 days later: %+v %v, want one backfill deleted", st, err)
	}
	if _, err := b.store.Backfill(b.ctx, b.id, done.Backfill.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("the ended backfill after retention: %v, want not found", err)
	}
	var runs int
	if err := b.db.QueryRow(`SELECT count(*) FROM backfill_runs WHERE backfill_id = $1`, done.Backfill.ID).Scan(&runs); err != nil || runs != 0 {
		t.Errorf("runs of the deleted backfill left: %d %v", runs, err)
	}
	if got, err := b.store.Backfill(b.ctx, b.id, running.Backfill.ID); err != nil || got.State != models.BackfillRunning {
		t.Errorf("the running backfill after retention: %+v %v, want it kept", got, err)
	}
}
