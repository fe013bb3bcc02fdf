package rollout

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
	"sked/scheduler/action"
)

// previousRelease is the commit of the release this tree must roll from:
// instances of it run beside this tree's during the test. It is the last
// main before instances recorded their release (migrations 0032, 0033).
// At a release, move it to the commit of the release before the one being
// made (the one users run now), so that CI rolls from it to the new tree;
// any full commit hash or unambiguous prefix works.
const previousRelease = "9400f66"

// Releases the two builds are given (-X main.version).
const (
	oldRelease = "rollout-previous"
	newRelease = "rollout-current"
)

const (
	// collections × jobsPerCollection minute jobs start one second apart,
	// so that an occurrence is due every second in every phase.
	collections       = 2
	jobsPerCollection = 30
	// phase is how long each mix of releases runs: 3 old, then 2 old and
	// 1 new, 1 old and 2 new, 3 new.
	phase = 20 * time.Second
	// instanceLogTail is how many lines of each instance's log a failure
	// prints.
	instanceLogTail = 60
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestRollingUpgrade starts three instances of the previous release on a
// new database, imports minute jobs with the previous release, then
// replaces the instances one at a time (SIGTERM, then a start of this
// tree's build, whose first start applies the new migrations beside the
// two older instances), and checks that every occurrence due meanwhile
// reached the target exactly once, judged by (job, expected time), and
// that engine_instances and schema_migrations tell the releases apart.
func TestRollingUpgrade(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// The embedded PostgreSQL is not used, but the data directories must
	// be enterable when the tests run as root.
	if err := os.Chmod(tmp, 0o711); err != nil {
		t.Fatal(err)
	}
	oldBin, newBin, prevKnown := buildReleases(t, root, tmp)

	dsn := testdb.EmptyDSN(t)
	target := newTarget(t)
	secretKey := strings.Repeat("ab", 32)
	n := 0
	start := func(bin, release string) *instance {
		t.Helper()
		n++
		return startInstance(t, bin, release, fmt.Sprintf("%s-%d", release, n), dsn, filepath.Join(tmp, fmt.Sprintf("data%d", n)), secretKey)
	}

	// Three instances of the previous release on an empty database: the
	// first migrates it (to the previous release's newest migration).
	var live []*instance
	for range 3 {
		live = append(live, start(oldBin, oldRelease))
	}

	// The jobs, imported by the previous release: job i of each collection
	// starts at t0 + i s and runs every minute.
	// The first user gets the workspace "default", where they go.
	cliDir := filepath.Join(tmp, "cli")
	runCLI(t, oldBin, dsn, cliDir, secretKey, "correct horse battery\n", "user", "add", "alice", "--admin")
	t0 := time.Now().Truncate(time.Second).Add(10 * time.Second)
	type job struct {
		path  string
		start time.Time
	}
	var jobs []job
	for c := range collections {
		var defs []string
		for i := range jobsPerCollection {
			name := fmt.Sprintf("j%02d", i)
			path := fmt.Sprintf("/c%d/%s", c, name)
			st := t0.Add(time.Duration(c*jobsPerCollection+i) * time.Second)
			jobs = append(jobs, job{path, st})
			defs = append(defs, fmt.Sprintf(`{"name": %q, "startTime": %q, "action": {"type": "http", "request": {"uri": %q, "method": "GET"}},
				"recurrence": {"frequency": "minute", "interval": 1}}`, name, st.UTC().Format(time.RFC3339), target.URL+path))
		}
		file := filepath.Join(tmp, fmt.Sprintf("jobs%d.json", c))
		if err := os.WriteFile(file, []byte("["+strings.Join(defs, ",\n")+"]"), 0o644); err != nil {
			t.Fatal(err)
		}
		runCLI(t, oldBin, dsn, cliDir, secretKey, "", "import", file, "--resource-group", "rollout", "--collection", fmt.Sprintf("c%d", c))
	}
	if time.Now().After(t0) {
		t.Fatalf("importing the jobs took until %s, after the first job's start %s: the machine is too slow for this test", time.Now().Format(time.RFC3339Nano), t0.Format(time.RFC3339Nano))
	}
	t.Logf("%d jobs imported by the previous release; the first starts at %s", len(jobs), t0.Format(time.TimeOnly))

	time.Sleep(time.Until(t0.Add(phase)))
	// steps[i] is when the i-th replacement began.
	var steps []time.Time
	var store *models.Store
	for step := range 3 {
		steps = append(steps, time.Now())
		old := live[0]
		if err := old.stop(); err != nil {
			t.Errorf("stopping %s: %v", old.name, err)
		}
		in := start(newBin, newRelease)
		live = append(live[1:], in)
		if store == nil {
			// The first instance of this tree has applied the new
			// migrations while the two older ones run.
			store = testdb.Open(t, dsn, testdb.Options())
			checkMigrationReleases(t, dsn, prevKnown)
		}
		checkInstances(t, store, live, prevKnown)
		t.Logf("step %d: %s replaced %s", step+1, in.name, old.name)
		time.Sleep(phase)
	}
	cutoff := time.Now().Add(-2 * time.Second)

	// Every occurrence due up to the cutoff, by job and expected time.
	want := map[string]bool{}
	for _, j := range jobs {
		for at := j.start; !at.After(cutoff); at = at.Add(time.Minute) {
			want[key(j.path, at)] = true
		}
	}
	// Wait for the last of them (each instance is on its own time), then
	// stop the instances: no attempt is left running.
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := target.byKey()
		missing := 0
		for k := range want {
			if len(got[k]) == 0 {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, in := range live {
		if err := in.stop(); err != nil {
			t.Errorf("stopping %s: %v", in.name, err)
		}
	}

	got := target.byKey()
	var missing, twice, unexpected []string
	var latest time.Duration
	for k := range want {
		if len(got[k]) == 0 {
			missing = append(missing, k)
		}
	}
	for k, arrivals := range got {
		if len(arrivals) > 1 {
			twice = append(twice, fmt.Sprintf("%s ×%d", k, len(arrivals)))
		}
		if !want[k] && arrivals[0].expected.Before(cutoff) {
			unexpected = append(unexpected, k)
		}
		for _, a := range arrivals {
			latest = max(latest, a.at.Sub(a.expected))
		}
	}
	slices.Sort(missing)
	slices.Sort(twice)
	slices.Sort(unexpected)
	t.Logf("%d occurrences due from %s to %s across the rollout; %d requests arrived, the latest %s after its expected time",
		len(want), t0.Format(time.TimeOnly), cutoff.Format(time.TimeOnly), target.count(), latest.Round(time.Millisecond))
	if len(missing) > 0 {
		t.Errorf("%d of %d occurrences never reached the target: %v", len(missing), len(want), missing)
	}
	if len(twice) > 0 {
		t.Errorf("%d occurrences reached the target more than once: %v", len(twice), twice)
	}
	if len(unexpected) > 0 {
		t.Errorf("requests for occurrences no job has: %v", unexpected)
	}
	checkRecords(t, dsn, steps[len(steps)-1])
	// Each mix of releases saw occurrences: 3 old, 2 old and 1 new, 1 old
	// and 2 new, 3 new.
	bounds := append(append([]time.Time{t0}, steps...), cutoff)
	perPhase := make([]int, len(bounds)-1)
	for _, j := range jobs {
		for at := j.start; !at.After(cutoff); at = at.Add(time.Minute) {
			for p := range perPhase {
				if !at.Before(bounds[p]) && at.Before(bounds[p+1]) {
					perPhase[p]++
				}
			}
		}
	}
	t.Logf("occurrences due per phase (3 old, 2 old + 1 new, 1 old + 2 new, 3 new): %v", perPhase)
	if slices.Contains(perPhase, 0) {
		t.Errorf("a phase of the rollout saw no occurrence: %v", perPhase)
	}
	if len(want) < len(jobs) {
		t.Errorf("only %d occurrences were due: the rollout did not span an occurrence of every job", len(want))
	}
}

// buildReleases checks out previousRelease into a temporary worktree and
// builds it and this tree (at once), returning the two binaries and the
// newest migration the previous release knows. It fails the test when git
// or the commit is missing.
func buildReleases(t *testing.T, root, tmp string) (oldBin, newBin string, prevKnown int) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is missing (apt-get install git): the rollout test builds the previous release %s from its commit: %v", previousRelease, err)
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "--quiet", previousRelease+"^{commit}").CombinedOutput(); err != nil {
		t.Fatalf("commit %s (previousRelease) is not in the repository at %s: the rollout test needs a full clone (git fetch --unshallow): %v %s",
			previousRelease, root, err, out)
	}
	src := filepath.Join(tmp, "previous")
	if out, err := exec.Command("git", "-C", root, "worktree", "add", "--detach", src, previousRelease).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add %s: %v\n%s", previousRelease, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("git", "-C", root, "worktree", "remove", "--force", src).CombinedOutput(); err != nil {
			t.Errorf("git worktree remove %s: %v\n%s", src, err, out)
		}
	})
	files, err := filepath.Glob(filepath.Join(src, "migrations", "[0-9]*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the previous release has no migrations in %s: %v", src, err)
	}
	slices.Sort(files)
	if _, err := fmt.Sscanf(filepath.Base(files[len(files)-1]), "%d_", &prevKnown); err != nil {
		t.Fatalf("the previous release's newest migration %s: %v", files[len(files)-1], err)
	}
	oldBin, newBin = filepath.Join(tmp, "sked-previous"), filepath.Join(tmp, "sked-current")
	began := time.Now()
	errs := make(chan error, 2)
	for _, b := range []struct{ dir, out, release string }{{src, oldBin, oldRelease}, {root, newBin, newRelease}} {
		go func() {
			// Without -trimpath, as `go test` builds: this tree's packages
			// and every dependency come from the build cache.
			cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+b.release, "-o", b.out, ".")
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("go build in %s: %v\n%s", b.dir, err, out)
				return
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("built %s (migrations up to %d) and this tree in %s", previousRelease, prevKnown, time.Since(began).Round(time.Millisecond))
	return oldBin, newBin, prevKnown
}

// Migrations from which a release records itself: in engine_instances
// (0032), in schema_migrations (0033).
const (
	instanceVersions  = 32
	migrationReleases = 33
)

// checkMigrationReleases checks schema_migrations once this tree has
// migrated: the previous release applied the migrations it knows (on the
// new database, recording itself when it knows migrationReleases, else
// nothing), this tree the rest, recording itself.
func checkMigrationReleases(t *testing.T, dsn string, prevKnown int) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT version, applied_by FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int]string{}
	for rows.Next() {
		var v int
		var by string
		if err := rows.Scan(&v, &by); err != nil {
			t.Fatal(err)
		}
		got[v] = by
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{}
	for _, m := range all {
		switch {
		case m.Version > prevKnown:
			want[m.Version] = newRelease
		case prevKnown >= migrationReleases:
			want[m.Version] = oldRelease
		default:
			want[m.Version] = ""
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("schema_migrations' applied_by by version:\n%v\nwant\n%v", got, want)
	}
}

// checkInstances waits until engine_instances holds exactly the live
// instances' rows (a stopped instance removes its own; a started one
// writes its first at once), then checks that this tree's record its
// release and newest migration and the previous release's record its own,
// or nothing (empty and 0) when it is older than instanceVersions.
func checkInstances(t *testing.T, store *models.Store, live []*instance, prevKnown int) {
	t.Helper()
	all, err := models.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	known := all[len(all)-1].Version
	var rows []models.EngineInstance
	matched := func() bool {
		rows, err = store.EngineInstances(context.Background())
		if err != nil || len(rows) != len(live) {
			return false
		}
		for _, in := range live {
			if in.row(rows) == nil {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(30 * time.Second)
	for !matched() {
		if time.Now().After(deadline) {
			t.Fatalf("engine_instances %+v (%v), want one row for each of %v", rows, err, live)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, in := range live {
		r := in.row(rows)
		switch {
		case in.release == newRelease && (r.Version != newRelease || r.SchemaVersion != known):
			t.Errorf("%s's row %+v: want version %s, schema version %d", in.name, *r, newRelease, known)
		case in.release == oldRelease && prevKnown < instanceVersions && (r.Version != "" || r.SchemaVersion != 0):
			t.Errorf("%s's row %+v: the previous release records no version", in.name, *r)
		case in.release == oldRelease && prevKnown >= instanceVersions && (r.Version != oldRelease || r.SchemaVersion != prevKnown):
			t.Errorf("%s's row %+v: want version %s, schema version %d", in.name, *r, oldRelease, prevKnown)
		}
	}
}

// key is an occurrence: the job's path and its expected time.
func key(path string, expected time.Time) string {
	return path + "@" + expected.UTC().Format(time.RFC3339Nano)
}

// ---- instances ----

// instance is a running `sked serve`.
type instance struct {
	name, release string
	cmd           *exec.Cmd
	log           *syncBuffer
	exited        chan struct{}
	waitErr       error
	stopped       bool
}

func (in *instance) String() string { return in.name }

// row returns the instance's engine_instances row: its id holds the pid.
func (in *instance) row(rows []models.EngineInstance) *models.EngineInstance {
	mark := fmt.Sprintf("-%d-", in.cmd.Process.Pid)
	for i := range rows {
		if strings.Contains(rows[i].ID, mark) {
			return &rows[i]
		}
	}
	return nil
}

// startInstance starts bin serve on dsn and waits until /readyz answers
// 200; it fails the test when the instance exits or is not ready in a
// minute. The instance is stopped when the test ends, and its log printed
// when the test failed.
func startInstance(t *testing.T, bin, release, name, dsn, dataDir, secretKey string) *instance {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	in := &instance{name: name, release: release, log: &syncBuffer{}, exited: make(chan struct{})}
	in.cmd = exec.Command(bin, "serve", "--database-url", dsn, "--data-dir", dataDir, "--listen", addr,
		"--secret-key", secretKey, "--allow-targets", "127.0.0.0/8", "--shutdown-timeout", "10s")
	in.cmd.Env = childEnv()
	in.cmd.Stdout, in.cmd.Stderr = in.log, in.log
	if err := in.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		in.waitErr = in.cmd.Wait()
		close(in.exited)
	}()
	t.Cleanup(func() {
		if !in.stopped {
			in.cmd.Process.Kill()
			<-in.exited
		}
		if t.Failed() {
			in.printLog(t)
		}
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-in.exited:
			t.Fatalf("%s exited before it was ready: %v", name, in.waitErr)
		default:
		}
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return in
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s at %s not ready after a minute (%v)", name, addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the instance to exit (killing it after
// 40 s); a graceful stop exits 0.
func (in *instance) stop() error {
	in.stopped = true
	select {
	case <-in.exited:
		return fmt.Errorf("%s had already exited: %v", in.name, in.waitErr)
	default:
	}
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-in.exited:
		return in.waitErr
	case <-time.After(40 * time.Second):
		in.cmd.Process.Kill()
		<-in.exited
		return fmt.Errorf("%s did not stop within 40 s of SIGTERM; killed", in.name)
	}
}

func (in *instance) printLog(t *testing.T) {
	lines := strings.Split(strings.TrimRight(in.log.String(), "\n"), "\n")
	if len(lines) > instanceLogTail {
		lines = lines[len(lines)-instanceLogTail:]
	}
	t.Logf("---- %s (last %d lines) ----\n%s", in.name, len(lines), strings.Join(lines, "\n"))
}

// runCLI runs a command of bin on dsn with stdin and fails the test when
// it fails.
func runCLI(t *testing.T, bin, dsn, dataDir, secretKey, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--database-url", dsn, "--data-dir", dataDir, "--secret-key", secretKey)...)
	cmd.Env = childEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sked %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// childEnv is the environment of the sked processes: ours without any
// SKED_ variable, which could point them elsewhere.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SKED_") {
			env = append(env, kv)
		}
	}
	return env
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ---- the target ----

// arrival is one request of an occurrence at the target.
type arrival struct {
	expected, at time.Time
}

// target records every request with its expected execution time.
type target struct {
	*httptest.Server
	mu   sync.Mutex
	got  map[string][]arrival
	bad  []string
	reqs int
}

func newTarget(t *testing.T) *target {
	tg := &target{got: map[string][]arrival{}}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		expected, err := time.Parse(time.RFC3339Nano, r.Header.Get(action.HeaderExpectedTime))
		tg.mu.Lock()
		tg.reqs++
		if err != nil {
			tg.bad = append(tg.bad, fmt.Sprintf("%s: %s: %v", r.URL.Path, action.HeaderExpectedTime, err))
		} else {
			k := key(r.URL.Path, expected)
			tg.got[k] = append(tg.got[k], arrival{expected: expected, at: now})
		}
		tg.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(func() {
		tg.Close()
		tg.mu.Lock()
		defer tg.mu.Unlock()
		if len(tg.bad) > 0 {
			t.Errorf("requests without a valid expected time: %v", tg.bad)
		}
	})
	return tg
}

// byKey returns a copy of the arrivals by occurrence.
func (tg *target) byKey() map[string][]arrival {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	out := make(map[string][]arrival, len(tg.got))
	for k, v := range tg.got {
		out[k] = slices.Clone(v)
	}
	return out
}

func (tg *target) count() int {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return tg.reqs
}

// checkRecords checks the history's two kinds of attempt: this tree starts
// an occurrence as a record (its history row from the start, migration
// 0041, lease_owner set) only while no instance of the previous release is
// alive, whose reads know no running row, so no record started before
// lastOld (when the last previous instance was stopped). It logs how many
// entries each kind wrote.
func checkRecords(t *testing.T, dsn string, lastOld time.Time) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var records, rows, early int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE lease_owner IS NOT NULL),
			count(*) FILTER (WHERE lease_owner IS NULL AND attempt_id IS NOT NULL),
			count(*) FILTER (WHERE lease_owner IS NOT NULL AND start_time < $1)
		FROM job_history`, lastOld).Scan(&records, &rows, &early); err != nil {
		t.Fatal(err)
	}
	t.Logf("history: %d attempts recorded as records (after the previous release left), %d as job_attempts rows", records, rows)
	if early > 0 {
		t.Errorf("%d records started while an instance of the previous release was alive", early)
	}
}
