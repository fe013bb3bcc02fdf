package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/catalog/catalogtest"
)

// limitTarget is a real HTTP target that records, as it sees them, how
// many requests it serves at once (the most), how many arrive in each
// second of the wall clock, and each request's arrival and expected time.
type limitTarget struct {
	*target
	mu       sync.Mutex
	now, max int
	perSec   map[int64]int
	arrivals []limitArrival
}

// limitArrival is one request as the target received it.
type limitArrival struct {
	at       time.Time
	expected time.Time
}

// newLimitTarget starts a target that answers after hold, or, when hold
// is zero, when release is closed.
func newLimitTarget(t *testing.T, hold time.Duration, release chan struct{}) *limitTarget {
	lt := &limitTarget{perSec: map[int64]int{}}
	lt.target = newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		exp, _ := time.Parse(time.RFC3339Nano, r.Header.Get("x-ms-scheduler-expected-execution-time"))
		lt.mu.Lock()
		lt.now++
		lt.max = max(lt.max, lt.now)
		lt.perSec[now.Unix()]++
		lt.arrivals = append(lt.arrivals, limitArrival{at: now, expected: exp})
		lt.mu.Unlock()
		if hold > 0 {
			time.Sleep(hold)
		} else {
			<-release
		}
		lt.mu.Lock()
		lt.now--
		lt.mu.Unlock()
	})
	return lt
}

// host is the target's host:port, the key of its limits.
func (lt *limitTarget) host(t *testing.T) string {
	u, err := url.Parse(lt.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestTargetLimitAcrossThreeEngines: three engines on one database, 60
// one-time jobs to one host due in three groups a second apart, the host
// limited to 3 in flight and 5 starts per second, the target answering
// after 200 ms. As the target measured it, never more than 3 at once nor
// 5 in any second of the wall clock; every job ran once; the requests
// came in due-time order (a request received 100 ms or more after
// another never has an earlier expected time); every history entry
// records its wait for the limit, the last ones several seconds.
func TestTargetLimitAcrossThreeEngines(t *testing.T) {
	t.Parallel()
	dsn := testdb.DSN(t)
	tg := newLimitTarget(t, 200*time.Millisecond, nil)
	engines := make([]*live, 3)
	stores := make([]*models.Store, 3)
	for i := range engines {
		stores[i] = openStore(t, dsn)
		engines[i] = startLive(t, stores[i], Config{InstanceID: fmt.Sprintf("limit-%d", i)})
	}
	ctx := context.Background()
	coll := newCollection(t, stores[0])
	host := tg.host(t)
	if _, _, err := engines[0].cat.PutTargetLimit(ctx, catalogtest.Actor, coll.WorkspaceID, host,
		[]byte(`{"maxConcurrent": 3, "maxPerSecond": 5}`)); err != nil {
		t.Fatal(err)
	}
	const jobs = 60
	t0 := time.Now().Add(12 * time.Second).Truncate(time.Second)
	ids := make([]int64, jobs)
	for i := range jobs {
		due := t0.Add(time.Duration(i/20) * time.Second)
		ids[i] = putJob(t, stores[i%3], coll, fmt.Sprintf("limited%d", i),
			fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(due), httpAction(tg.URL+"/x", "")))
	}
	if time.Now().After(t0) {
		t.Fatal("saving 60 jobs outlasted the 12-s lead: the machine is too slow for this test")
	}
	waitAll(t, engines, jobs)
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if len(tg.arrivals) != jobs {
		t.Fatalf("the target received %d requests, want %d", len(tg.arrivals), jobs)
	}
	if tg.max > 3 {
		t.Errorf("the target served %d requests at once, the limit is 3", tg.max)
	}
	var secs []string
	for s, n := range tg.perSec {
		secs = append(secs, fmt.Sprintf("%d:%d", s-t0.Unix(), n))
		if n > 5 {
			t.Errorf("the target received %d requests in second %d, the limit is 5", n, s)
		}
	}
	sort.Strings(secs)
	arr := append([]limitArrival(nil), tg.arrivals...)
	sort.Slice(arr, func(i, j int) bool { return arr[i].at.Before(arr[j].at) })
	for i := range arr {
		for j := i + 1; j < len(arr); j++ {
			if arr[j].at.Sub(arr[i].at) >= 100*time.Millisecond && arr[j].expected.Before(arr[i].expected) {
				t.Errorf("a request due at %s arrived %s after one due at %s: not in due-time order",
					arr[j].expected.Format(time.TimeOnly), arr[j].at.Sub(arr[i].at), arr[i].expected.Format(time.TimeOnly))
			}
		}
	}
	var longest int64
	for _, id := range ids {
		hs, err := stores[0].History(ctx, models.HistoryQuery{JobID: id, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 1 || hs[0].Status != models.StatusCompleted {
			t.Fatalf("job %d: history %v, want one completed entry", id, historyLines(hs))
		}
		if hs[0].LimitWaitMs == nil {
			t.Fatalf("job %d: no wait for the limit recorded", id)
		}
		if hs[0].LatenessMs == nil || *hs[0].LatenessMs < *hs[0].LimitWaitMs-1000 {
			t.Errorf("job %d: lateness %v ms is less than its wait for the limit %d ms", id, hs[0].LatenessMs, *hs[0].LimitWaitMs)
		}
		longest = max(longest, *hs[0].LimitWaitMs)
	}
	// 60 starts at 5 a second take 12 s: the last group, due 2 s after
	// the first, waits 8 s or more.
	if longest < 5000 {
		t.Errorf("the longest wait for the limit is %d ms, want 5 s or more", longest)
	}
	t.Logf("most at once %d; starts per second from the first due time: %v; longest wait %d ms", tg.max, secs, longest)
}

// TestTargetLimitRemovedTakesEffectAtOnce: five jobs due now to a host
// limited to one in flight whose target holds every request: one starts,
// four wait (the Targets page's status says so); removing the limit
// starts the four while the first is still held, without a poll (the
// engines' safety poll is an hour).
func TestTargetLimitRemovedTakesEffectAtOnce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	tg := newLimitTarget(t, 0, release)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	dsn := testdb.DSN(t)
	store := openStore(t, dsn)
	e1 := startLive(t, store, Config{InstanceID: "limit-a"})
	startLive(t, openStore(t, dsn), Config{InstanceID: "limit-b"})
	ctx := context.Background()
	coll := newCollection(t, store)
	host := tg.host(t)
	if _, _, err := e1.cat.PutTargetLimit(ctx, catalogtest.Actor, coll.WorkspaceID, host, []byte(`{"maxConcurrent": 1}`)); err != nil {
		t.Fatal(err)
	}
	seen := make(chan received, 10)
	tg.mu.Lock()
	tg.target.mu.Lock()
	tg.seen = seen
	tg.target.mu.Unlock()
	tg.mu.Unlock()
	for i := range 5 {
		putJob(t, store, coll, fmt.Sprintf("held%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
			rfc(time.Now().Add(-time.Second)), httpAction(tg.URL+"/x", "")))
	}
	waitSeen(t, seen)
	// The four others wait for the limit (as the store counts them).
	for {
		st, err := store.TargetStatuses(ctx, coll.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) == 1 && st[0].InFlight == 1 && st[0].Waiting == 4 {
			break
		}
		if len(st) == 1 && st[0].InFlight+st[0].Waiting > 5 {
			t.Fatalf("status %+v", st[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	removed := time.Now()
	if err := e1.cat.DeleteTargetLimit(ctx, catalogtest.Actor, coll.WorkspaceID, host); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		waitSeen(t, seen)
	}
	tg.mu.Lock()
	most := tg.max
	tg.mu.Unlock()
	if most != 5 {
		t.Errorf("the target served at most %d at once after the limit was removed, want all 5 (the first still held)", most)
	}
	t.Logf("the four waiting attempts arrived %s after the limit was removed", time.Since(removed).Round(time.Millisecond))
	close(release)
}

// waitSeen waits for the next request a target sees.
func waitSeen(t *testing.T, seen chan received) {
	t.Helper()
	select {
	case <-seen:
	case <-time.After(30 * time.Second):
		t.Fatal("the target got no request within 30 s")
	}
}

// waitAll waits until the engines together wrote n results.
func waitAll(t *testing.T, engines []*live, n int) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	got := 0
	for got < n {
		select {
		case <-engines[0].done:
		case <-engines[1].done:
		case <-engines[2].done:
		case <-deadline:
			t.Fatalf("%d of %d attempts finished within 2 minutes", got, n)
		}
		got++
	}
}

// TestTargetMetrics: with a host limited to one in flight and a target
// that holds its requests, two due jobs: sked_target_in_flight and
// sked_target_waiting say 1 and 1 (the database's view, labelled by
// workspace and host); once released, sked_target_wait_seconds has
// counted both starts, the second one's wait above zero.
func TestTargetMetrics(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	tg := newLimitTarget(t, 0, release)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	store := testdb.Store(t)
	reg := prometheus.NewRegistry()
	e := startLiveWith(t, store, Config{InstanceID: "metrics-limit"},
		Deps{Notifier: models.NewListener(store.DSN(), quietLogger()), Metrics: NewMetrics(reg)})
	ctx := context.Background()
	coll := newCollection(t, store)
	host := tg.host(t)
	if _, _, err := e.cat.PutTargetLimit(ctx, catalogtest.Actor, coll.WorkspaceID, host, []byte(`{"maxConcurrent": 1}`)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		putJob(t, store, coll, fmt.Sprintf("m%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
			rfc(time.Now().Add(-time.Second)), httpAction(tg.URL+"/x", "")))
	}
	labels := "host=" + host + " workspace=" + coll.WorkspaceID + " "
	for {
		m := gathered(t, reg)
		if m["sked_target_in_flight "+labels] == "1" && m["sked_target_waiting "+labels] == "1" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	e.next(t)
	e.next(t)
	m := gathered(t, reg)
	if got := m["sked_target_wait_seconds host="+host+" "]; got != "2" {
		t.Errorf("sked_target_wait_seconds counted %q starts, want 2 (all: %v)", got, m)
	}
	if sum := m["sked_target_wait_seconds_sum host="+host+" "]; sum == "0" || sum == "" {
		t.Errorf("sked_target_wait_seconds sums %q, want the second start's wait", sum)
	}
}

// gathered returns reg's metrics as "name labels " → value (a
// histogram's count, and its sum under name_sum).
func gathered(t *testing.T, reg *prometheus.Registry) map[string]string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			switch {
			case m.GetGauge() != nil:
				out[f.GetName()+" "+labels] = fmt.Sprint(m.GetGauge().GetValue())
			case m.GetHistogram() != nil:
				out[f.GetName()+" "+labels] = fmt.Sprint(m.GetHistogram().GetSampleCount())
				out[f.GetName()+"_sum "+labels] = fmt.Sprint(m.GetHistogram().GetSampleSum())
			}
		}
	}
	return out
}
