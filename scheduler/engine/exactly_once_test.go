package engine

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/pgserver"
	"sked/models/testdb"
)

// TestExactlyOnceAcrossThreeEngines is the one long test (about 3.5
// minutes): three engines on one database run 2,000 minute jobs whose
// start times are spread over the minute, for three minutes of real time.
// Every occurrence due before the engines stop, and after its job was
// saved, is received exactly once (by its Idempotency-Key), and no key is
// received twice.
func TestExactlyOnceAcrossThreeEngines(t *testing.T) {
	if testing.Short() {
		t.Log("-short: running 200 jobs for one minute instead of 2,000 for three")
	}
	jobs, minutes := 2000, 3
	if testing.Short() {
		jobs, minutes = 200, 1
	}
	t.Parallel()
	dsn := testdb.DSN(t)
	exactlyOnce(t, exactlyOnceRun{jobs: jobs, lead: 15 * time.Second, spread: 60, run: time.Duration(minutes) * time.Minute,
		onTime: jobs / 2, everyEngineRuns: true,
		start: func(i int) (*live, *models.Store) {
			s := openStore(t, dsn)
			return startLive(t, s, Config{InstanceID: fmt.Sprintf("engine-%d", i)}), s
		}})
}

// TestExactlyOnceThroughPooler is TestExactlyOnceAcrossThreeEngines,
// short (90 jobs starting within 5 s), with the three engines' stores
// behind PgBouncer in transaction mode (testdb.Pooled: their
// transactions take turns on a few server connections): once with each
// engine's LISTEN on the database itself, once without LISTEN, the
// engines polling every second as serve's do behind a pooler without
// --listen-database-url.
func TestExactlyOnceThroughPooler(t *testing.T) {
	for _, listen := range []bool{true, false} {
		name := "listening"
		if !listen {
			name = "polling"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsn := testdb.DSN(t)
			pooled := testdb.Pooled(t, dsn)
			exactlyOnce(t, exactlyOnceRun{jobs: 90, lead: 7 * time.Second, spread: 5, run: 10 * time.Second, onTime: 20,
				start: func(i int) (*live, *models.Store) {
					store := testdb.Open(t, pooled, models.Options{PasswordCost: bcrypt.MinCost, Pooler: models.PoolerTransaction})
					cfg := Config{InstanceID: fmt.Sprintf("pooled-%s-%d", name, i)}
					if !listen {
						cfg.SafetyPoll = time.Second
						return startLiveWith(t, store, cfg, Deps{}), store
					}
					return startLiveWith(t, store, cfg, Deps{Notifier: models.NewListener(dsn, quietLogger())}), store
				}})
		})
	}
}

// exactlyOnceRun is one run of exactlyOnce.
type exactlyOnceRun struct {
	// jobs minute jobs are saved, the first start time lead after the
	// saving begins, the start times spread over spread seconds; the
	// engines stop run after the first start time.
	jobs   int
	lead   time.Duration
	spread int
	run    time.Duration
	// onTime is how many jobs at least must be saved before their start
	// time (the others run no occurrence in a short run): fewer fail the
	// test, which would check too little.
	onTime int
	// everyEngineRuns asks that each engine ran some attempts (a long run
	// shares them out; a short one may not).
	everyEngineRuns bool
	// start starts engine i (0, 1, 2) on a store of its own, which it
	// returns too.
	start func(i int) (*live, *models.Store)
}

// exactlyOnce starts three engines, saves r.jobs minute jobs through
// their stores in turn, waits until r.run after the first start time and
// stops the engines: every occurrence due up to 2 s before the stop, and
// after its job was saved, was received exactly once (by its
// Idempotency-Key), and no key was received twice.
func exactlyOnce(t *testing.T, r exactlyOnceRun) {
	t.Helper()
	jobs := r.jobs
	var mu sync.Mutex
	counts := map[string]int{}
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
	})
	engines := make([]*live, 3)
	stores := make([]*models.Store, len(engines))
	for i := range engines {
		engines[i], stores[i] = r.start(i)
	}
	// A collection holds at most 1,000 jobs.
	colls := make([]*models.CollectionRow, (jobs+999)/1000)
	for i := range colls {
		colls[i] = newCollection(t, stores[0])
	}
	t0 := time.Now().Add(r.lead).Truncate(time.Second)
	ids := make([]int64, jobs)
	starts := make([]time.Time, jobs)
	saved := make([]time.Time, jobs)
	late := 0
	for i := range jobs {
		starts[i] = t0.Add(time.Duration(i%r.spread) * time.Second)
		ids[i] = putJob(t, stores[i%3], colls[i/1000], fmt.Sprintf("j%d", i), fmt.Sprintf(
			`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`, rfc(starts[i]), httpAction(tg.URL+"/x", "")))
		// A job saved after its start time does not run the occurrences
		// before it was saved (SPEC §2: past occurrences do not run): on
		// a loaded machine saving 2,000 jobs can outlast the lead.
		if saved[i] = time.Now(); saved[i].After(starts[i]) {
			late++
		}
	}
	if jobs-late < r.onTime {
		t.Fatalf("%d of %d jobs were saved after their start time: the machine is too slow for this test's lead", late, jobs)
	}
	end := t0.Add(r.run)
	// The one deliberate wait: the test is about real time passing.
	time.Sleep(time.Until(end))
	for _, e := range engines {
		if err := e.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// Every occurrence due up to 2 s before the stop must have run.
	cutoff := end.Add(-2 * time.Second)
	missing, expected := 0, 0
	var examples []string
	for i, id := range ids {
		for at := starts[i]; !at.After(cutoff); at = at.Add(time.Minute) {
			if at.Before(saved[i]) {
				continue // before the job existed
			}
			expected++
			key := fmt.Sprintf("%d:%s", id, at.UTC().Format(time.RFC3339Nano))
			if counts[key] != 1 {
				missing++
				if len(examples) < 5 {
					examples = append(examples, fmt.Sprintf("%s received %d times", key, counts[key]))
				}
			}
		}
	}
	var dups []string
	total := 0
	for k, n := range counts {
		total += n
		if n > 1 {
			dups = append(dups, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	sort.Strings(dups)
	t.Logf("%d jobs (%d saved after their start time), %d occurrences expected, %d requests received, %d distinct keys; the engines ran %d, %d and %d",
		jobs, late, expected, total, len(counts), len(engines[0].done), len(engines[1].done), len(engines[2].done))
	if expected == 0 {
		t.Error("no occurrence was expected: the test checked nothing")
	}
	if len(dups) > 0 {
		t.Errorf("%d occurrences ran more than once, e.g. %v", len(dups), dups[:min(5, len(dups))])
	}
	if missing > 0 {
		t.Errorf("%d of %d occurrences not received exactly once, e.g. %v", missing, expected, examples)
	}
	if r.everyEngineRuns {
		// Each engine took a share.
		for i, e := range engines {
			if len(e.done) == 0 {
				t.Errorf("engine %d ran nothing", i)
			}
		}
	}
}

// TestPostgresRestartDuringARun restarts the PostgreSQL server (pg_ctl
// restart) while jobs are due and attempts are in flight: the engine
// reconnects, records the results it holds, runs what became due, and
// nothing is lost or run twice.
func TestPostgresRestartDuringARun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sked-restart-")
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := pgserver.StartTestCluster(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop() })
	restarted := false
	t.Cleanup(func() {
		if restarted {
			pgCtl(t, "stop", "-m", "immediate", "-D", filepath.Join(cluster.Dir(), "data"))
		}
	})
	admin, err := sql.Open("pgx", cluster.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE DATABASE sked`); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	store := testdb.Open(t, cluster.DSN("sked"), models.Options{PasswordCost: bcrypt.MinCost})
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	coll := newCollection(t, store)
	tg := newTarget(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) })
	tg.seen = make(chan received, 100)
	e := startLive(t, store, Config{ErrorBackoff: 100 * time.Millisecond, LeaseMargin: 2 * time.Second})
	const n = 20
	t0 := time.Now().Add(2 * time.Second).Truncate(time.Second)
	ids := map[int64]bool{}
	for i := range n {
		ids[putJob(t, store, coll, fmt.Sprintf("r%d", i), fmt.Sprintf(`{"startTime":%q,"action":%s}`,
			rfc(t0.Add(time.Duration(i%6)*time.Second)), httpAction(tg.URL+"/r", `"timeout":"PT5S"`)))] = true
	}
	<-tg.seen // the first attempts are in flight
	pgCtl(t, "restart", "-m", "fast", "-w", "-t", "60", "-D", filepath.Join(cluster.Dir(), "data"),
		"-l", filepath.Join(cluster.Dir(), "restarted.log"))
	restarted = true
	ended := map[int64]bool{}
	for len(ended) < n {
		d := e.next(t)
		if d.Recorded && d.JobEnded {
			ended[d.JobID] = true
		}
	}
	keys := map[string]int{}
	for _, r := range tg.requests() {
		keys[r.Key]++
	}
	for k, c := range keys {
		if c > 1 {
			// Only an attempt whose claim committed while its answer was lost
			// is retried, as an interrupted attempt: same key, new tag.
			t.Logf("key %s received %d times", k, c)
		}
	}
	if len(keys) != n {
		t.Errorf("%d distinct occurrences received, want %d", len(keys), n)
	}
	for id := range ids {
		j, err := store.JobByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := store.History(ctx, models.HistoryQuery{JobID: id, Limit: 10})
		if j.State != jobdef.Completed || len(h) == 0 || h[0].Status != models.StatusCompleted || int64(len(h)) != j.ExecutionCount {
			t.Errorf("job %d: state %s, %d history entries, %d executions", id, j.State, len(h), j.ExecutionCount)
		}
	}
}

// pgCtl runs pg_ctl (as the postgres user when running as root).
func pgCtl(t *testing.T, args ...string) {
	t.Helper()
	bins, err := pgserver.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	name, argv := bins.Path("pg_ctl"), args
	if os.Geteuid() == 0 {
		name, argv = "runuser", append([]string{"-u", "postgres", "--", bins.Path("pg_ctl")}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Dir = "/"
	cmd.WaitDelay = 5 * time.Second // the server it starts must not hold our pipes
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
